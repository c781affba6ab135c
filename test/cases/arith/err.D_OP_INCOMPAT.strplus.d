/* @@stderr: operands have incompatible types: "string" + "int" */
/* + adds integers, or an integer to a pointer: not to a string */
BEGIN { x = execname + 1; }
