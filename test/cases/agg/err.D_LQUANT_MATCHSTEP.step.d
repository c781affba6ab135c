/* @@stderr: lquantize( ) step (argument #3) doesn't match previous declaration: expected 1, found 2 */
BEGIN { @lat = lquantize(1, 0, 10, 1); }
END { @lat = lquantize(2, 0, 10, 2); }
