/* @@opts: -q */
BEGIN { printf("%d\n", (uint8_t)300); exit(0); }
