/* @@opts: -q */
BEGIN { printf("%d%%%d %%s\n", 1, 2); exit(0); }
