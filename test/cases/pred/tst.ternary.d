/* @@opts: -q */
BEGIN { x = 2; } BEGIN /x > 1 ? 1 : 0/ { printf("t\n"); } BEGIN /x > 5 ? 1 : 0/ { printf("f\n"); } BEGIN { exit(0); }
