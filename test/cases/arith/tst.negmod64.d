/* @@opts: -q */
BEGIN { x = -9223372036854775807 - 1; printf("%d %d\n", x / -2, x % 10); exit(0); }
