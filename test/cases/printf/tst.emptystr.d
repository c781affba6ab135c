/* @@opts: -q */
BEGIN { printf("[%s][%5s]\n", "", ""); exit(0); }
