/* @@opts: -q */
BEGIN { s = "abcdef"; s = "de"; printf("%s %d\n", s, strlen(s)); exit(0); }
