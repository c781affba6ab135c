/* @@opts: -q */
BEGIN { x = (uint64_t)-1; printf("%u %d\n", x / 2, x >> 60); exit(0); }
