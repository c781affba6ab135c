/* args[0] of close is an unsigned int (from the tracepoint format): -1 reads as 4294967295. */
/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 0 30' */
syscall::close:entry /pid == $target && args[0] > 1000/ { @[args[0]] = count(); }
END { printa("%d %@d\n", @); }
