/* @@stderr: operator ~ requires an operand of integral type */
BEGIN { x = ~"abc"; }
