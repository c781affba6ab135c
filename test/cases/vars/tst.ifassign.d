/* @@opts: -q */
BEGIN { x = 0; if (x) { y = 1; s = "one"; } else { y = 2; s = "two"; } printf("%d %s\n", y, s); exit(0); }
