/* @@opts: -q */
BEGIN { x = -1; printf("%d %d %d\n", x < 0, x == -1, x != -1); exit(0); }
