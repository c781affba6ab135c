/* @@opts: -q */
BEGIN { printf("%ld %lld %lu\n", 1, 2, 3); exit(0); }
