/* @@opts: -q */
BEGIN { printf("%s %s %s\n", lltostr(-1234), lltostr(0), lltostr(9223372036854775807)); exit(0); }
