/* @@opts: -q */
BEGIN { printf("%s|%s|%s\n", substr("hello world", 6), substr("hello world", 0, 5), substr("hello", -3)); exit(0); }
