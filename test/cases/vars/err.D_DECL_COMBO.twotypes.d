/* @@stderr: invalid type combination */
int char x;
BEGIN { exit(0); }
