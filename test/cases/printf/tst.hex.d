/* @@opts: -q */
BEGIN { printf("%x %X %o %#x\n", 255, 255, 8, 16); exit(0); }
