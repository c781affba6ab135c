/* @@stderr: operator && requires operands of scalar type */
/* a string is not a scalar (it is an array of char): compare it instead */
BEGIN { x = execname && 1; }
