/* getppid() returns the caller's parent: arg0 of the return probe equals ppid. */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 50' */
syscall::getppid:return /pid == $target/ { @[arg0 == ppid] = count(); }
END { printa("%d %@d\n", @); }
