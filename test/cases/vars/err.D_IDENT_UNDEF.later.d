/* @@stderr: failed to resolve done: unknown variable name */
/* the clauses are compiled in order: a variable first assigned by a later
   clause does not exist yet where this one reads it (declare it: int done;) */
tick-10ms /done/ { exit(0); }
BEGIN { done = 1; }
