/* @@opts: -q */
int x;
BEGIN { x = 5; } BEGIN { printf("%d\n", x); exit(0); }
