/* syscall:::entry enables every system call; the predicate selects two of them. */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 12 0 5' */
syscall:::entry /pid == $target && (probefunc == "getppid" || probefunc == "nanosleep")/ { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }
