/*
 * int $0x80 from a 64-bit process is a 32-bit system call, numbered by
 * i386's table: i386's getpid (20) must count as getpid, not writev, and
 * its close (6) as close, not lstat.
 */
/* @@setup: gcc -O1 -o /tmp/sonde-int80 int80.c */
/* @@opts: -q -c '/tmp/sonde-int80 4321' */
syscall::getpid:entry,
syscall::writev:entry,
syscall::lstat:entry
/pid == $target/
{
	@[probefunc, probename] = count();
}

syscall::close:entry
/pid == $target && (int)arg0 == -1/
{
	@[probefunc, probename] = count();
}

syscall::close:return
/pid == $target && arg0 == -EBADF && errno == EBADF/
{
	@[probefunc, probename] = count();
}

syscall::getpid:return
/pid == $target && arg0 == pid/
{
	@[probefunc, probename] = count();
}

END
{
	printa("%s:%s %@d\n", @);
}
