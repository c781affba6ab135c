/* @@opts: -q */
BEGIN { printf("%x\n", (int)-1); exit(0); }
