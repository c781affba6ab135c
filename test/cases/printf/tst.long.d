/* @@opts: -q */
BEGIN { printf("%d\n", 4294967296 * 3); exit(0); }
