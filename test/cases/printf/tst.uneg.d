/* @@opts: -q */
BEGIN { printf("%u %u\n", -1, (int64_t)-1); exit(0); }
