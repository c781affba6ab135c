/* @@opts: -q */
tick-1ms /i < 4/ { i++; if (i == 1) printf("one\n"); else if (i == 2) printf("two\n"); else if (i == 3) printf("three\n"); else printf("more\n"); } tick-1ms /i == 4/ { exit(0); }
