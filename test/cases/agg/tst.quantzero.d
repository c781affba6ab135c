/* @@opts: -q */
BEGIN { @ = quantize(0); exit(0); }
