/* @@stderr: quantize( ) increment value (argument #2) must be of scalar type */
/* the optional last argument of quantize() is a weight: an integer */
BEGIN { @a = quantize(1, "heavy"); }
