BEGIN { @ = lquantize(1, 0, 10, 0); }
