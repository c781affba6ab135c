/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 12' */
syscall:::return /pid == $target && probefunc == "getppid"/ { @ = count(); }
END { printa("%@d\n", @); }
