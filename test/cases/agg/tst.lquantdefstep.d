/* The step defaults to 1. */
/* @@opts: -q */
BEGIN { @ = lquantize(2, 0, 5); @ = lquantize(2, 0, 5); @ = lquantize(7, 0, 5); exit(0); }
