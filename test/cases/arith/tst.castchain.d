/* @@opts: -q */
BEGIN { printf("%d %d %d\n", (uint8_t)(int8_t)-1, (int16_t)(uint16_t)65535, (int)(char)0x180); exit(0); }
