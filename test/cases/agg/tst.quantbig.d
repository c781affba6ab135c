/* 2^62 goes to the last quantize bucket. dt_print_quantize looks for the
   first non-zero bucket among all but the last, so data only in the last
   bucket prints as an empty distribution: the buckets -1, 0 and 1. */
/* @@opts: -q */
BEGIN { @ = quantize(4611686018427387904); exit(0); }
