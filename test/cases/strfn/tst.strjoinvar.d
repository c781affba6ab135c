/* @@opts: -q */
BEGIN { s = "a"; s = strjoin(s, "b"); s = strjoin(s, "c"); printf("%s\n", s); exit(0); }
