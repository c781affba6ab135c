/* Constant expressions fold with C's conversions: unsigned division, logical shift, unsigned comparison. */
/* @@opts: -q */
BEGIN { printf("%u %u %d %d\n", (uint64_t)-1 / 2, (uint64_t)-1 >> 63, -1 < (uint64_t)1, (uint32_t)1 > -1); exit(0); }
