/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::write:return /pid == $target/ { @ = lquantize(arg0, 0, 4, 1); }
