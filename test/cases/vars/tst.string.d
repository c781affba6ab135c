/* @@opts: -q */
BEGIN { s = "hello"; printf("%s %d\n", s, strlen(s)); exit(0); }
