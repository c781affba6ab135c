/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::write:entry /execname == "dd" && pid == $target/ { @[execname] = count(); }
END { printa("%s %@d\n", @); }
