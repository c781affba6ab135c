/* The usual arithmetic conversions: -1 compared with an unsigned value is converted to unsigned. */
/* @@opts: -q */
BEGIN { m = -1; one = 1; u64 = (uint64_t)1; u32 = (uint32_t)1; printf("%d %d %d\n", m < u64, m < one, u32 > m); exit(0); }
