/* @@stderr: operands have incompatible types: "int *" - "char *" */
/* pointers subtract only when they point to the same type */
BEGIN { p = (int *)alloca(8); s = (char *)p; d = p - s; }
