/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 3' */
syscall::getppid:return /pid == $target/ { @[errno] = count(); }
END { printa("%d %@d\n", @); }
