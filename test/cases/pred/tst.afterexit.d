/* Once exit() has been called no further probe fires: "done" is printed once. */
/* @@opts: -q */
tick-1ms /n < 3/ { n++; printf("%d\n", n); } tick-1ms /n == 3/ { printf("done\n"); exit(0); }
