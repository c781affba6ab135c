/* An offset probe on an instruction boundary fires there. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 7' */
pid$target::pick:2 { @[probename] = count(); }
