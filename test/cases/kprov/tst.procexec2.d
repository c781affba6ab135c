/*
 * proc:::signal-clear when sigtimedwait() takes a pending signal;
 * proc:::exec with the path of each execve, exec-failure with the errno
 * of the one that fails, exec-success for the other.
 */
/* @@setup: gcc -O1 -o /tmp/sonde-execsig execsig.c */
/* @@opts: -q -c /tmp/sonde-execsig */
proc:::signal-clear
/pid == $target/
{
	printf("signal-clear %d (SIGUSR1 %d)\n", args[0], args[0] == SIGUSR1);
}

proc:::exec
/pid == $target/
{
	printf("exec %s\n", stringof(args[0]));
}

proc:::exec-failure
/pid == $target/
{
	printf("exec-failure %d (ENOENT %d)\n", args[0], args[0] == ENOENT);
}

proc:::exec-success
/pid == $target/
{
	printf("exec-success %s\n", execname);
}
