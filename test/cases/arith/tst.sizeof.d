/* @@opts: -q */
BEGIN { printf("%d %d %d %d\n", sizeof(int), sizeof(char), sizeof(uint64_t), sizeof(short)); exit(0); }
