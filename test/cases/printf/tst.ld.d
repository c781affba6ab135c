/* @@opts: -q */
BEGIN { printf("%ld %lld %lu\n", (long)1, (long long)2, (unsigned long)3); exit(0); }
