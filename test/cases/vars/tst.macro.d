/* @@opts: -q */
/* @@args: 41 hello */
BEGIN { printf("%d %s\n", $1 + 1, $$2); exit(0); }
