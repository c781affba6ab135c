/* @@opts: -q */
BEGIN { printf("a"); printf("b"); printf("c\n"); exit(0); }
