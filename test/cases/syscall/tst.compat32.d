/*
 * A 32-bit process's system calls are numbered by i386's table: each must
 * fire the probes of the call of the same name, with its arguments from
 * i386's registers (ebx, ecx, edx...), not those of amd64's call of that
 * number (getpid counted as writev, write as stat, close as lstat). Calls
 * amd64 has no namesake for (getuid32, _llseek) have probes of their own.
 */
/* @@setup: gcc -m32 -O1 -nostdlib -static -fno-pic -no-pie -o /tmp/sonde-compat32 compat32.c */
/* @@opts: -q -c /tmp/sonde-compat32 */
/* @@status: 0 */
syscall:::entry
/pid == $target/
{
	@e[probefunc] = count();
}

syscall:::return
/pid == $target/
{
	@r[probefunc] = count();
}

syscall::write:entry
/pid == $target/
{
	@w[arg0, arg2] = count();
}

syscall::close:entry
/pid == $target/
{
	@ca[(int)arg0] = count();
}

syscall::close:return
/pid == $target/
{
	@cr[arg0, errno] = count();
}

syscall::_llseek:return
/pid == $target/
{
	@ll[arg0, errno] = count();
}

syscall::exit_group:entry
/pid == $target/
{
	@x[arg0] = count();
}

END
{
	printa("entry %s %@d\n", @e);
	printa("return %s %@d\n", @r);
	printa("write fd %d size %d: %@d\n", @w);
	printa("close fd %d: %@d\n", @ca);
	printa("close returned %d errno %d: %@d\n", @cr);
	printa("_llseek returned %d errno %d: %@d\n", @ll);
	printa("exit_group status %d: %@d\n", @x);
}
