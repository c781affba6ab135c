/* @@opts: -q */
BEGIN { printf("[%3c][%-3c]\n", 'x', 'y'); exit(0); }
