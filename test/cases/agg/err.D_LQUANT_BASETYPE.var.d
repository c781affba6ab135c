BEGIN { x = 1; @ = lquantize(1, x, 10, 1); exit(0); }
