/* @@opts: -q */
BEGIN { printf("[%.3s][%-6.2s][%.5d][%8.3s]\n", "abcdef", "xyz", 42, "abcdef"); exit(0); }
