/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 4' */
syscall::getppid:entry /pid == $target/ { @[execname, tid == pid] = count(); }
END { printa("%s %d %@d\n", @); }
