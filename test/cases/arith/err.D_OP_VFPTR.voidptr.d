/* @@stderr: operator ++ requires an operand of known size */
/* a void * has no element size to step by */
BEGIN { p = (void *)0; p++; }
