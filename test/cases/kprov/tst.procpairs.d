/*
 * Probes of one BTF tracepoint enabled together each keep their own
 * program (they once shared the first probe's prologue, so that
 * lwp-create fired for the process and lwp-exit at the process's exit),
 * and fire as illumos fires them: lwp-create for every new thread, a new
 * process's first one too, before create; lwp-exit in every thread that
 * exits, the last one too, before exit. The target forks a child, then
 * makes a thread.
 */
/* @@setup: gcc -O1 -pthread -o /tmp/sonde-forkthread forkthread.c */
/* @@opts: -q -c /tmp/sonde-forkthread */
proc:::lwp-create
/pid == $target/
{
	@[probename, args[0]->pr_lwpid == args[1]->pr_pid ? "the child's first thread" :
	    args[1]->pr_pid == $target ? "a thread of the target" : "?"] = count();
	self->made = args[1]->pr_pid;
}

proc:::create
/pid == $target/
{
	printf("create: a process %d, after lwp-create of its first thread %d\n",
	    args[0]->pr_pid != $target, self->made == args[0]->pr_pid);
}

proc:::lwp-exit
/pid == $target || ppid == $target/
{
	@[probename, pid == $target ? (tid == pid ? "the target's main thread" : "a thread of the target") :
	    "the child's only thread"] = count();
	self->lwpexit = 1;
}

proc:::exit
/pid == $target || ppid == $target/
{
	@[probename, pid == $target ? "the target" : "the child"] = count();
	@[probename, self->lwpexit ? "after lwp-exit in its thread" : "before lwp-exit"] = count();
}

END
{
	printa("%s: %s %@d\n", @);
}
