/* @@opts: -q */
BEGIN { printf("%X %x\n", (uint64_t)0xdeadbeefcafe, (uint64_t)0xdeadbeefcafe); exit(0); }
