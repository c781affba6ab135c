/* @@opts: -q */
BEGIN { printf("%x\n", (int64_t)-1); exit(0); }
