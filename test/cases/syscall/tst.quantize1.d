/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::write:entry /pid == $target/ { @ = quantize(arg2); }
END { printa("%@d\n", @); }
