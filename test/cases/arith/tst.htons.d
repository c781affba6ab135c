/* @@opts: -q */
BEGIN { printf("%x %x\n", htons(0x1234), htonl(0x12345678)); exit(0); }
