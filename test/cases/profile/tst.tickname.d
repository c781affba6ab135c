/* @@opts: -q */
tick-50ms { printf("%s %s\n", probeprov, probename); exit(0); }
