BEGIN { printf("%*d\n", "wide", 5); exit(0); }
