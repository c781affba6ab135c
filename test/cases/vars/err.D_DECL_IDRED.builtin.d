/* @@stderr: built-in identifier redeclared: timestamp */
int timestamp;
BEGIN { exit(0); }
