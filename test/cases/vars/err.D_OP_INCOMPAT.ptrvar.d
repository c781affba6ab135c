/* @@stderr: operands have incompatible types: "char *" = "int *" */
/* a pointer variable keeps the type it was first given */
BEGIN { p = (char *)alloca(8); p = (int *)p; }
