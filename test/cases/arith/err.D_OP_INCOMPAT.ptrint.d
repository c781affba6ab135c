/* @@stderr: operands have incompatible types: "int *" == "int" */
BEGIN { p = (int *)alloca(8); trace(p == 1); }
