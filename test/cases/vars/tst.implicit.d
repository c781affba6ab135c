/* @@opts: -q */
BEGIN { n = 7; } BEGIN { printf("%d\n", n * 6); exit(0); }
