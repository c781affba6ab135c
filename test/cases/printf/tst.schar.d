/* @@opts: -q */
BEGIN { printf("%d\n", (char)200); exit(0); }
