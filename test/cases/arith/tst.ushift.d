/* @@opts: -q */
BEGIN { x = (uint32_t)0x80000000; y = (uint64_t)-1; printf("%u %u\n", x >> 31, y >> 63); exit(0); }
