/*
 * In a new process's first thread, start, lwp-start, lwp-exit and exit
 * fire in this order, as in illumos's tst.startexit.ksh: each clause sees
 * the thread-local variable the previous one set. The target forks a
 * single-threaded child.
 */
/* @@setup: gcc -O1 -pthread -o /tmp/sonde-forkthread forkthread.c */
/* @@opts: -q -c /tmp/sonde-forkthread */
proc:::start
/ppid == $target/
{
	self->start = 1;
}

proc:::lwp-start
/self->start/
{
	self->lwpstart = 1;
}

proc:::lwp-exit
/self->lwpstart/
{
	self->lwpexit = 1;
}

proc:::exit
/self->lwpexit/
{
	printf("start, lwp-start, lwp-exit, exit in %s\n", pid != $target && ppid == $target ? "the child" : "?");
	exit(0);
}
