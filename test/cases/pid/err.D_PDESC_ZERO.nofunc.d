/* A function that does not exist: the description names itself. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 3' */
/* @@status: 1 */
/* @@stderr: does not match any probes */
pid$target::no_such_function:entry { @ = count(); }
