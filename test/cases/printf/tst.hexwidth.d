/* @@opts: -q */
BEGIN { printf("[%8x][%-8x][%08X]\n", 0xbeef, 0xbeef, 0xbeef); exit(0); }
