/* @@opts: -q */
BEGIN { @ = quantize(4611686018427387904); exit(0); }
