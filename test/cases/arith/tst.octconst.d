/* @@opts: -q */
BEGIN { printf("%d %d %d\n", 010, 0x10, 0X1f); exit(0); }
