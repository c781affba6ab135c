/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::write:entry /pid == $target/ { @a = count(); }
syscall::write:entry /pid == $target/ { @b = count(); }
END { printa("%@d %@d\n", @a, @b); }
