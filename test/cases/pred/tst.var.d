/* @@opts: -q */
BEGIN { x = 3; } BEGIN /x == 3/ { printf("three\n"); } BEGIN /x != 3/ { printf("other\n"); } BEGIN { exit(0); }
