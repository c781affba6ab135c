/* @@opts: -q */
BEGIN { printf("%d %d %d %c\n", 'A', '\n', '\101', 'A' + 1); exit(0); }
