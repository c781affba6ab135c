/* 0xffffffff does not fit an int, so its type is unsigned int. */
/* @@opts: -q */
BEGIN { printf("%d %d %d\n", 0xffffffff, 0x7fffffff, 0xffffffff + 1); exit(0); }
