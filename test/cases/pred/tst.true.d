/* @@opts: -q */
BEGIN /1/ { printf("yes\n"); } BEGIN /0/ { printf("no\n"); } BEGIN { exit(0); }
