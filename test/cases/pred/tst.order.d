/* @@opts: -q */
BEGIN { printf("1\n"); } BEGIN { printf("2\n"); } BEGIN { printf("3\n"); exit(0); }
