BEGIN { x = 1; trunc(x); exit(0); }
