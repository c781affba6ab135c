/* @@setup: gcc -O1 -o /tmp/sonde-sysc sysc.c */
/* @@opts: -q -c '/tmp/sonde-sysc 7' */
syscall::getppid:entry /pid == $target/ { self->n++; }
syscall::exit_group:entry /pid == $target/ { printf("%d\n", self->n); }
