/* @@opts: -q */
BEGIN { x = 5; y = x++; z = ++x; printf("%d %d %d\n", x, y, z); x--; --x; printf("%d\n", x); exit(0); }
