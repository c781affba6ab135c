/* @@opts: -q */
BEGIN { printf("%d %d\n", strlen(""), strlen(strjoin("ab", "cde"))); exit(0); }
