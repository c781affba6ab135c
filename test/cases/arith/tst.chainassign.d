/* @@opts: -q */
BEGIN { x = y = 3; z = (x += 2) * 10; printf("%d %d %d\n", x, y, z); exit(0); }
