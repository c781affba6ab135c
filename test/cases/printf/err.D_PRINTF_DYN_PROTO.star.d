BEGIN { printf("%*d\n"); exit(0); }
