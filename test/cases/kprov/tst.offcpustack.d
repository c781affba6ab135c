/* The seed's off-CPU hunt: ustack() at on-cpu is the stack sleep 1 had when it went off CPU, through libc's sleep. */
/* @@opts: -q -c 'sleep 1' */
sched:::off-cpu /pid == $target/ { self->start = timestamp; }
sched:::on-cpu /self->start/
{
	@[ustack()] = sum(timestamp - self->start);
	self->start = 0;
}
END { trunc(@, 1); printa("%k %@d\n", @); }
