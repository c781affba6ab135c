/* @@stderr: invalid type declaration: long and long long may only be used with integer or floating-point type */
/* long applies to the integer and floating-point types, not to string */
long string s;
BEGIN { exit(0); }
