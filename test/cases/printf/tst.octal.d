/* @@opts: -q */
BEGIN { printf("%o %#o %#x %#X\n", 64, 64, 255, 255); exit(0); }
