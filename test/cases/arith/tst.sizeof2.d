/* @@opts: -q */
BEGIN { printf("%d %d %d %d %d\n", sizeof (long), sizeof (uint32_t), sizeof (char *), sizeof (pid), sizeof (int64_t)); exit(0); }
