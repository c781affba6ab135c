/* @@opts: -q */
BEGIN { @ = llquantize(5000, 10, 0, 2, 10); exit(0); }
