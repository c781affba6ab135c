/* self-> arrays keyed by file descriptor: dd's reads of fd 0 and writes
   of fd 1, one thread's counts. */
/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=123 status=none' */
syscall::read:entry /pid == $target/ { self->rd[arg0]++; }
syscall::write:entry /pid == $target/ { self->wr[arg0] += arg2; }
syscall::exit_group:entry /pid == $target/ { printf("%d %d %d %d\n", self->rd[0], self->wr[1], self->rd[1], self->wr[0]); }
