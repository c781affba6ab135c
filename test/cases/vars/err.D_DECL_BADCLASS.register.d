/* @@stderr: specified storage class not appropriate in D */
/* D variables have no register or auto storage */
register int r;
BEGIN { exit(0); }
