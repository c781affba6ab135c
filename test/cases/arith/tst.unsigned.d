/* @@opts: -q */
BEGIN { x = (uint32_t)0xffffffff; printf("%u\n", x + 1); exit(0); }
