/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=100 count=40 status=none' */
syscall::read:return /pid == $target && arg0 == 100/ { @["read"] = quantize(arg0); }
