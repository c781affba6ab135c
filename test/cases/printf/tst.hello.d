/* @@opts: -q */
BEGIN { printf("hello, world\n"); exit(0); }
