/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=77 status=none' */
syscall::write:entry /pid == $target && arg2 == 1 && arg0 == 1/ { @ = count(); }
END { printa("%@d\n", @); }
