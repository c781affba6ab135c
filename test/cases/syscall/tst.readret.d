/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=321 status=none' */
syscall::read:return /pid == $target && arg0 == 1/ { @n = count(); @s = sum(arg0); }
END { printa("%@d %@d\n", @n, @s); }
