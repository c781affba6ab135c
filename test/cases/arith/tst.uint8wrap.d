/* @@opts: -q */
uint8_t c;
BEGIN { c = 255; c++; printf("%d\n", c); exit(0); }
