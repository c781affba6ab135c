/* @@stderr: operator * requires operands of arithmetic type */
BEGIN { p = (int *)alloca(8); q = p * 2; }
