/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 0 0 20' */
syscall::nanosleep:entry /pid == $target/ { @ = count(); }
syscall::nanosleep:return /pid == $target/ { @r[arg0] = count(); }
END { printa("%@d\n", @); printa("ret %d: %@d\n", @r); }
