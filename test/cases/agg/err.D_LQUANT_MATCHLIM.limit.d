/* @@stderr: lquantize( ) limit (argument #2) doesn't match previous declaration: expected 10, found 20 */
/* every lquantize() of an aggregation has the same levels */
BEGIN { @lat = lquantize(1, 0, 10, 1); }
END { @lat = lquantize(2, 0, 20, 1); }
