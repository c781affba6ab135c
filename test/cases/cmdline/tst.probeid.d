/* -i names a probe by its ID as sonde -l shows it (2 is END), with a clause after it as dtrace's -i probe-id[[predicate] action] allows. */
/* @@opts: -q -i '2 { printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename); }' */
BEGIN { exit(0); }
