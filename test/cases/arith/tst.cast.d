/* @@opts: -q */
BEGIN { x = 0x1ff; printf("%d %d\n", (uint8_t)x, (int8_t)x); exit(0); }
