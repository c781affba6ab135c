/* @@opts: -q */
BEGIN { x = 1; y = 0; printf("%d %d %d %d\n", x && y, x || y, x ^^ y, !y); exit(0); }
