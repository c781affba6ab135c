/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::read:entry /pid == $target && arg0 == 0/ { @ = count(); }
END { printa("%@d\n", @); }
