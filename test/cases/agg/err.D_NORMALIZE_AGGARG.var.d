BEGIN { x = 1; normalize(x, 2); exit(0); }
