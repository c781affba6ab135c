/* -P (and -m, -f) take a predicate and an action after the description, as dtrace's -P provider[[predicate]action]. */
/* @@opts: -q -P 'dtrace /probename != "ERROR"/ { printf("P %s\n", probename); }' */
BEGIN { exit(0); }
