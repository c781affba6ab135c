/* A library named without its version (libc.so) or its suffix (libc), as DTrace scripts name libraries: the probes are libc.so.6's. */
/* @@setup: gcc -O2 -o /tmp/sonde-calls calls.c */
/* @@opts: -q -c '/tmp/sonde-calls 50' */
pid$target:libc.so:malloc:entry /arg0 == 12345/ { @[probemod, probefunc] = count(); }
pid$target:libc:malloc:entry /arg0 == 12345/ { @n = count(); }
END { printa(@); printa("%@d\n", @n); }
