/* @@opts: -q */
BEGIN { a = vtimestamp; } BEGIN { printf("%d %d\n", a > 0, vtimestamp >= a); exit(0); }
