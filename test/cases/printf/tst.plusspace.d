/* @@opts: -q */
BEGIN { printf("[%+d][% d][%+d][% d]\n", 5, 5, -5, -5); exit(0); }
