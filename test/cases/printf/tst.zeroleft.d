/* In dtrace's format parser a '0' flag after '-' turns zero padding back on. */
/* @@opts: -q */
BEGIN { printf("[%05d][%-5d][%-05d]\n", -42, -42, -42); exit(0); }
