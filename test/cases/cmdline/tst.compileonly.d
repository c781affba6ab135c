/* @@opts: -e */
BEGIN { printf("never\n"); exit(0); }
