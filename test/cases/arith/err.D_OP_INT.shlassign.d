/* @@stderr: operator <<= requires operands of integral type */
BEGIN { x = 1; x <<= "two"; }
