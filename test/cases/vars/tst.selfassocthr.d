/* Each thread has its own elements of a self-> associative array: three
   threads count their getppid() calls under one key. */
/* @@setup: gcc -O1 -pthread -o /tmp/sonde-threads threads.c */
/* @@opts: -q -c /tmp/sonde-threads */
syscall::getppid:entry /pid == $target/ { self->n[probefunc]++; }
syscall::exit:entry, syscall::exit_group:entry /pid == $target/ { @[probefunc, self->n["getppid"]] = count(); }
