/* @@opts: -q */
BEGIN { printf("%d %d\n", +5 - -3, -(-(7))); exit(0); }
