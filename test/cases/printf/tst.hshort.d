/* @@opts: -q */
BEGIN { printf("%hd %hu\n", (short)-3, (unsigned short)65535); exit(0); }
