/* @@stderr: operator . cannot be applied to type */
BEGIN { x = 1; trace(x.member); }
