/* >> of a signed value is an arithmetic shift. */
/* @@opts: -q */
BEGIN { x = -16; printf("%d %d\n", x >> 2, x << 2); exit(0); }
