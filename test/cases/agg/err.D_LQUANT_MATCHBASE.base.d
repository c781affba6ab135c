/* @@stderr: lquantize( ) base (argument #1) doesn't match previous declaration: expected 0, found 5 */
BEGIN { @lat = lquantize(1, 0, 10, 1); }
END { @lat = lquantize(2, 5, 10, 1); }
