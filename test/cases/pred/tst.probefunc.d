/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=55 status=none' */
syscall::read*:entry /pid == $target && probefunc == "read" && arg0 == 0/ { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }
