/* @@stderr: identifier redefined: LIMIT */
/* an inline may not take the name of a variable */
int LIMIT;
inline int LIMIT = 10;
BEGIN { exit(0); }
