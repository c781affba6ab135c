/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1000 status=none' */
syscall::write:entry /progenyof($target)/ { @ = count(); }
END { printa("%@d\n", @); }
