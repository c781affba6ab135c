/* A glob in the function field: newfstatat and statx both match *stat*. */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 0 0 0 7 3' */
syscall::*stat*:entry /pid == $target && (int)arg0 == -100/ { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }
