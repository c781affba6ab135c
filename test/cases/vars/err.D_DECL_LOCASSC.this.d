/* @@stderr: associative arrays may not be declared as local variables: seen */
/* clause-local (this->) variables are scalars only */
this int seen[int];
BEGIN { exit(0); }
