/* @@stderr: operands have incompatible types: "int *" < "char *" */
/* pointers compare with pointers to the same type, void *, or 0 */
BEGIN { p = (int *)alloca(8); s = (char *)p; trace(p < s); }
