/* @@stderr: operator - requires an operand of arithmetic type */
BEGIN { p = (int *)alloca(8); q = -p; }
