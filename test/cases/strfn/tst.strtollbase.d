/* A strtoll() base outside 2..36 is an illegal operation at run time, as in
   DTrace: the clause stops there and its data is dropped (its first printf
   too); the other clauses go on. */
/* @@opts: -q */
/* @@stderr: illegal operation in action #2 */
BEGIN { printf("before\n"); printf("%d\n", strtoll("10", 37)); }
BEGIN { printf("done\n"); exit(0); }
