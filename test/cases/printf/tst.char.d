/* @@opts: -q */
BEGIN { printf("%c%c%c\n", 'a', 'b', 0x63); exit(0); }
