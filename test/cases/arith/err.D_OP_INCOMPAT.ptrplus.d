/* @@stderr: operands have incompatible types: "int *" + "int *" */
/* a pointer plus an integer is a pointer; two pointers do not add */
BEGIN { p = (int *)alloca(8); q = p + p; }
