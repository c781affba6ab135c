/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::*write*:entry /pid == $target/ { @ = count(); }
END { printa("%@d\n", @); }
