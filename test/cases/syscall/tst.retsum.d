/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::write:return /pid == $target/ { @ = sum(arg0); }
END { printa("%@d\n", @); }
