/* %l and %ll conversions take long and long long arguments. */
/* @@opts: -q */
BEGIN { printf("%lx %llx %lu %ld %lld\n", (long)255, (long long)255, (unsigned long)7, (long)-5, (long long)-6); exit(0); }
