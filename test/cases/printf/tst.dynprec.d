/* A negative '*' width left-justifies. */
/* @@opts: -q */
BEGIN { printf("[%.*s][%*d][%-*d][%*s]\n", 2, "hello", -4, 7, 3, 8, 0, "ab"); exit(0); }
