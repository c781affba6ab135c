/* @@opts: -q */
BEGIN { x = (1, 2); printf("%d\n", x); exit(0); }
