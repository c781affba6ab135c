/* close(-1) fails with EBADF (9); errno is set in the return probe. */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 0 300' */
syscall::close:return /pid == $target && errno != 0/ { @[errno] = count(); }
END { printa("%d %@d\n", @); }
