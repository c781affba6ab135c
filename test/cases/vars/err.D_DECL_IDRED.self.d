/* @@stderr: identifier redeclared: self->n */
/* the same declaration twice is allowed; another type is not */
int n;
int n;
self int n;
self char n;
BEGIN { exit(0); }
