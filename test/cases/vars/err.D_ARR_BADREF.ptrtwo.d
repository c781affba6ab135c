/* @@stderr: cannot access variable p as an associative array */
/* a pointer takes one subscript */
BEGIN { p = (int *)alloca(8); trace(p[0, 1]); }
