/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=512 count=10 status=none' */
syscall::write:entry /pid == $target && arg0 == 1/ { @[arg2] = count(); }
END { printa("%d bytes x %@d\n", @); }
