/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=123 status=none' */
syscall::read:entry /pid == $target && arg0 == 0/ { self->reads++; }
syscall::exit_group:entry /pid == $target/ { printf("%d\n", self->reads); }
