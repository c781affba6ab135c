/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=321 status=none' */
syscall::write:entry /pid == $target/ { if (arg0 == 1) { @out = count(); } else { @other = count(); } }
END { printa("%@d\n", @out); }
