/* @@opts: -q */
BEGIN { @ = quantize(8, 5); @ = quantize(100, 2); exit(0); }
