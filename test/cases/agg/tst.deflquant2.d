/* @@opts: -q */
BEGIN { @ = lquantize(3, 0, 10, 1); @ = lquantize(4, 0, 10, 1); exit(0); }
