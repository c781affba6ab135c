/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 7 0 3' */
syscall::getppid:entry, syscall::nanosleep:entry /pid == $target/ { @[probefunc] = count(); }
