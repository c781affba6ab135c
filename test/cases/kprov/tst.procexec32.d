/*
 * A 32-bit process's system calls are numbered by i386's table: proc's
 * exec, exec-failure and signal-clear fire for its execve (11), execveat
 * (358), rt_sigtimedwait (177) and rt_sigtimedwait_time64 (421), and not
 * for the calls whose i386 numbers are amd64's execveat (timerfd_create,
 * 322) and execve (oldolduname, 59).
 */
/* @@setup: gcc -m32 -O1 -nostdlib -static -fno-pic -no-pie -fno-stack-protector -o /tmp/sonde-exec32 exec32.c */
/* @@opts: -q -c /tmp/sonde-exec32 */
proc:::signal-clear
/pid == $target/
{
	printf("signal-clear %d\n", args[0]);
}

proc:::exec
/pid == $target/
{
	printf("exec %s\n", stringof(args[0]));
}

proc:::exec-failure
/pid == $target/
{
	printf("exec-failure %d\n", args[0]);
}

proc:::exec-success
/pid == $target/
{
	printf("exec-success %s\n", execname);
}
