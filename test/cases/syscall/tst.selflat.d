/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none'  */
syscall::write:entry /pid == $target/ { self->ts = timestamp; }
syscall::write:return /self->ts/ { @n = count(); @neg = sum(timestamp < self->ts); self->ts = 0; }
END { printa("%@d\n", @n); printa("%@d\n", @neg); }
