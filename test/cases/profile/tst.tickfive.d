/* @@opts: -q */
tick-10ms /++n == 5/ { printf("five ticks\n"); exit(0); }
