/* @@stderr: llquantize( ) high magnitude (argument #3) doesn't match previous declaration: expected 6, found 7 */
BEGIN { @lat = llquantize(1, 10, 0, 6, 20); }
END { @lat = llquantize(2, 10, 0, 7, 20); }
