/* An aggregation that never received data prints nothing at exit. */
/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=10 status=none' */
syscall::write:entry /pid == $target && arg0 == 2/ { @ = count(); }
