/* Clause-local variables keep their value across the clauses of one probe firing. */
/* @@opts: -q */
BEGIN { this->x = 5; } BEGIN { printf("%d\n", this->x); exit(0); }
