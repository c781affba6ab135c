/* @@opts: -q */
BEGIN { @ = lquantize(0, 0, 100, 10); @ = lquantize(50, 0, 100, 10); @ = lquantize(100, 0, 100, 10); @ = lquantize(150, 0, 100, 10); @ = lquantize(-1, 0, 100, 10); exit(0); }
