/* @@opts: -q */
BEGIN { printf("%s\n", strjoin("foo", "bar")); exit(0); }
