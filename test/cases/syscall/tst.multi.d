/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::read:entry,syscall::write:entry /pid == $target && (arg0 == 0 || arg0 == 1)/ { @[probefunc] = count(); }
END { printa("%s %@d\n", @); }
