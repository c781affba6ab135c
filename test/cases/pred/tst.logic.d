/* @@opts: -q */
BEGIN /1 && 0/ { printf("and\n"); } BEGIN /1 || 0/ { printf("or\n"); } BEGIN /!(pid == 0)/ { printf("not\n"); } BEGIN { exit(0); }
