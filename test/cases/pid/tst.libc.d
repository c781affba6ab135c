/* A libc function by module: the command is held until its libraries are mapped, so libc.so.6 probes are in place before main. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 50' */
pid$target:libc.so.6:malloc:entry /arg0 == 12345/ { @[probemod, probefunc] = count(); }
