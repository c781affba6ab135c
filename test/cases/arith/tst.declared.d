/* @@opts: -q */
int64_t big;
int32_t small;
BEGIN { big = 1; big <<= 40; small = big; printf("%d %d\n", big, small); exit(0); }
