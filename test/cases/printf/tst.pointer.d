/* %p prints an address in hex as dtrace does (no 0x prefix). */
/* @@opts: -q */
BEGIN { printf("%p\n", (uint64_t)0x1234); exit(0); }
