/* @@opts: -q -x switchrate=50000000 -x statusrate=1000000000 -x aggrate=250000000 */
/* Bare numbers of nanoseconds for the rates (50 ms, 1 s, 250 ms). */
BEGIN { printf("ok\n"); exit(0); }
