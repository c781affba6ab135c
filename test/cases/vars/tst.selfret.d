/* A thread-local set at entry is seen at return and cleared there. */
/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=200 status=none' */
syscall::read:entry /pid == $target && arg0 == 0/ { self->fd = arg0 + 100; }
syscall::read:return /self->fd == 100/ { @ = count(); self->fd = 0; }
END { printa("%@d\n", @); }
