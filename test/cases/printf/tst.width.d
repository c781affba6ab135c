/* @@opts: -q */
BEGIN { printf("[%5d][%-5d][%05d]\n", 42, 42, 42); exit(0); }
