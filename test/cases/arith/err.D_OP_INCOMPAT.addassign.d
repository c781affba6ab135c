/* @@stderr: operands have incompatible types: "int" += "string" */
/* += adds an integer: a string is not one */
BEGIN { x = 1; x += execname; }
