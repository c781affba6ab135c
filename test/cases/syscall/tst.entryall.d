/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall:::entry /pid == $target && probefunc == "write"/ { @ = count(); }
syscall:::return /pid == $target && probefunc == "write"/ { @r = count(); }
END { printa("%@d %@d\n", @, @r); }
