/* @@opts: -q */
BEGIN { @ = quantize(1); @ = quantize(3); @ = quantize(3); @ = quantize(1000); @ = quantize(0); exit(0); }
