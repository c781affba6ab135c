/* @@opts: -q */
BEGIN { printf("[%s][%10s][%-10s]\n", "abc", "abc", "abc"); exit(0); }
