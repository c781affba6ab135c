/* @@opts: -q */
BEGIN { @ = quantize(-5); exit(0); }
