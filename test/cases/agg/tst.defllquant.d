/* @@opts: -q */
BEGIN { @ = llquantize(5, 10, 0, 3, 10); @ = llquantize(55, 10, 0, 3, 10); @ = llquantize(555, 10, 0, 3, 10); @ = llquantize(5555, 10, 0, 3, 10); exit(0); }
