/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 500' */
syscall::getppid:entry /pid == $target/ { @ = count(); }
END { printa("%@d\n", @); }
