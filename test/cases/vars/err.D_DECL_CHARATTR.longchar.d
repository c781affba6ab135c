/* @@stderr: invalid type declaration: short and long may not be used with char type */
long char c;
BEGIN { exit(0); }
