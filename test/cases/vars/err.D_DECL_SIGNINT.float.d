/* @@stderr: invalid type declaration: signed and unsigned may only be used with integer type */
unsigned float f;
BEGIN { exit(0); }
