/* @@opts: -q */
BEGIN { @ = lquantize(-20, -10, 10, 5); @ = lquantize(-7, -10, 10, 5); @ = lquantize(3, -10, 10, 5); @ = lquantize(12, -10, 10, 5); exit(0); }
