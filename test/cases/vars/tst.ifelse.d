/* @@opts: -q */
BEGIN { x = 3; if (x > 2) { printf("big\n"); } else { printf("small\n"); } if (x > 5) printf("huge\n"); else printf("not huge\n"); exit(0); }
