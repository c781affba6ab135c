BEGIN { @ = lquantize(1, 0, 1000000, 70000); }
