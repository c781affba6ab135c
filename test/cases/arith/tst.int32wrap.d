/* @@opts: -q */
int x;
BEGIN { x = 2147483647; x = x + 1; printf("%d\n", x); exit(0); }
