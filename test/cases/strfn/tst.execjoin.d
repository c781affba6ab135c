/* @@opts: -q */
BEGIN { printf("%s\n", strjoin(execname, ":x")); exit(0); }
