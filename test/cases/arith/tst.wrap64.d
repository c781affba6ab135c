/* @@opts: -q */
BEGIN { x = 9223372036854775807; x++; printf("%d\n", x); exit(0); }
