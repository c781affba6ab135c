/* @@opts: -q */
BEGIN { v[1] = "first"; v[1] = "1st"; v[2] = strjoin(v[1], "!"); printf("%s %s [%s]\n", v[1], v[2], v[3]); exit(0); }
