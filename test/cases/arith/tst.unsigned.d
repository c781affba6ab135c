/* @@opts: -q */
BEGIN { x = (uint32_t)0xffffffff; printf("%u %u\n", (uint64_t)x + 1, x + 1); exit(0); }
