/*
 * proc:::start fires for the new process (its pid, its parent the
 * target), proc:::lwp-start for the new thread (the target's pid, a tid of
 * its own) and, after start, for the new process's first thread; self->
 * is the new thread's.
 */
/* @@setup: gcc -O1 -pthread -o /tmp/sonde-forkthread forkthread.c */
/* @@opts: -q -c /tmp/sonde-forkthread */
proc:::start
/ppid == $target/
{
	printf("start: new pid=%d parent=target %d\n", pid != $target, ppid == $target);
	self->started = 1;
}

proc:::lwp-start
/ppid == $target/
{
	printf("lwp-start: the new process's first thread=%d self->started=%d\n", tid == pid, self->started);
}

proc:::lwp-start
/pid == $target/
{
	printf("lwp-start: same pid=%d new tid=%d self->started=%d\n", pid == $target, tid != pid, self->started);
}
