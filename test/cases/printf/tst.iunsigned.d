/* %i always converts signed, at the argument's size. */
/* @@opts: -q */
BEGIN { printf("%i %i\n", (uint32_t)0xffffffff, (uint64_t)-1); exit(0); }
