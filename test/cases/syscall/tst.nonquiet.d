/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -c '/tmp/sonde-sysc 0 0 2' */
syscall::nanosleep:entry /pid == $target/ { }
