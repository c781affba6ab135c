/* @@opts: -q */
BEGIN { c = (uint8_t)255; c++; d = (int16_t)32767; d += 1; printf("%d %d\n", c, d); exit(0); }
