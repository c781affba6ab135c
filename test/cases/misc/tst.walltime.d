/* @@opts: -q */
BEGIN { printf("%d\n", walltimestamp > 1700000000000000000); exit(0); }
