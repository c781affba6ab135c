/* @@stderr: invalid type declaration: attributes may not be used with void type */
unsigned void *p;
BEGIN { exit(0); }
