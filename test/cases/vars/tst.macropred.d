/* @@opts: -q */
/* @@args: 12 */
BEGIN /$1 > 10/ { printf("big\n"); } BEGIN /$1 <= 10/ { printf("small\n"); } BEGIN { exit(0); }
