/* @@opts: -q */
BEGIN { x = 12; printf("%d %d %d %d\n", x & 10, x | 3, x ^ 5, ~x); exit(0); }
