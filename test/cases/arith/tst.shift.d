/* @@opts: -q */
BEGIN { x = 1; printf("%d %d\n", x << 10, 1024 >> 3); exit(0); }
