BEGIN { printf("plain\n", 1); exit(0); }
