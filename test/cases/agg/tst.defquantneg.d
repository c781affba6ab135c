/* @@opts: -q */
BEGIN { @ = quantize(-1); @ = quantize(-100); @ = quantize(5); exit(0); }
