/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 9' */
syscall::getppid:entry, syscall::getppid:return /pid == $target/ { @[probename] = count(); }
END { printa("%s %@d\n", @); }
