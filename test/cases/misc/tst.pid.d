/* @@opts: -q */
BEGIN { printf("%d\n", pid == $pid); exit(0); }
