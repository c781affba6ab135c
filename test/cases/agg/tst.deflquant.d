/* @@opts: -q */
BEGIN { @ = lquantize(-5, 0, 50, 10); @ = lquantize(15, 0, 50, 10); @ = lquantize(15, 0, 50, 10); @ = lquantize(99, 0, 50, 10); exit(0); }
