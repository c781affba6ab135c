/* @@opts: -q */
BEGIN { a = 7; b = 3; printf("%d %d %d %d\n", a % b, -a % b, a % -b, -a % -b); exit(0); }
