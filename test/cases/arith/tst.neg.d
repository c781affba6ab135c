/* @@opts: -q */
BEGIN { x = 5; printf("%d\n", -x); exit(0); }
