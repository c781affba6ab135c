/* @@opts: -q */
BEGIN { t = 1; f = 0; printf("%d %d %d %d\n", t ^^ t, f ^^ f, t ^^ f, 5 ^^ 0); exit(0); }
