/* @@opts: -q */
BEGIN { printf("%d %d %d\n", (int8_t)-128, (int16_t)-32768, (int32_t)0x80000000); exit(0); }
