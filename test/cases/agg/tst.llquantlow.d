/* @@opts: -q */
BEGIN { @ = llquantize(0, 10, 0, 2, 10); exit(0); }
