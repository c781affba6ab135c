/* @@opts: -q */
BEGIN { printf("%s %s\n", probeprov, probename); exit(0); }
