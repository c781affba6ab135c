/* @@opts: -q */
BEGIN { x = 3; y = 4; printf("%d\n", x + y * 2); exit(0); }
