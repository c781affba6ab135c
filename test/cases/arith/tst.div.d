/* @@opts: -q */
BEGIN { x = 17; printf("%d %d\n", x / 5, x % 5); exit(0); }
