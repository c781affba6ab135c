/* @@opts: -q */
BEGIN { x = 3000000000; y = x * 3; printf("%d %d\n", 4294967296, y); exit(0); }
