/* @@opts: -q */
BEGIN { printf("%d %i %u\n", 42, -7, 3); exit(0); }
