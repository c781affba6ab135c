/* @@stderr: identifier redeclared: count */
/* a variable may be declared again only with the same type */
int count;
char count;
BEGIN { exit(0); }
