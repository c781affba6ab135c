/* @@opts: -q */
profile-99hz /cpu >= 0/ { n++; }
tick-1s { printf("%d\n", n > 0); exit(0); }
