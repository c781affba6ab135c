/* BEGIN fires before any other probe: no syscall:::entry clause runs before it. */
/* @@opts: -q */
int began;
syscall:::entry /!began/ { early++; }
BEGIN { began = 1; }
tick-10ms /++n == 2/ { printf("%d\n", early); exit(0); }
