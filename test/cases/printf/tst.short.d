/* @@opts: -q */
BEGIN { printf("%d\n", (short)70000); exit(0); }
