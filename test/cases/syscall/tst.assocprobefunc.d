/*
 * The classic latency script: ts[probefunc] stored in read:entry is found
 * in read:return, whose probe differs (the key was the probe ID, so the
 * return clause never fired).
 */
/* @@opts: -q -c 'dd if=/dev/zero of=/dev/null bs=1 count=1234 status=none' */
syscall::read:entry /pid == $target && arg0 == 0/ { ts[probefunc] = timestamp; }
syscall::read:return /pid == $target && ts[probefunc]/
{
	@n = count();
	@neg = sum(timestamp < ts[probefunc]);
	ts[probefunc] = 0;
}
END { printa("%@d %@d\n", @n, @neg); }
