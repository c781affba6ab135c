/* @@opts: -q */
BEGIN { x = 4; if (x > 2) { if (x > 3) { printf("a\n"); } else { printf("b\n"); } } else { printf("c\n"); } exit(0); }
