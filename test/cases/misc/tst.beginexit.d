/* A BEGIN clause after one that called exit() does not run (dtrace_probe:
   only BEGIN clauses in WARMUP); END still does. */
/* @@opts: -q */
BEGIN { printf("first\n"); exit(0); }
BEGIN { printf("not reached\n"); }
tick-1ms { printf("not reached either\n"); }
END { printf("end\n"); }
