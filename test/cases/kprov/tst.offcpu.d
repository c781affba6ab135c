/* The seed's off-CPU one-liner: sleep 1 is off CPU for a second, and on-cpu fires for it (its pid, its self->). */
/* @@opts: -q -c 'sleep 1' */
sched:::off-cpu /pid == $target/ { self->start = timestamp; }
sched:::on-cpu /self->start && ((timestamp - self->start) > 900000000)/
{
	printf("%s waited >= 1s: %d, pid is target: %d\n", execname, (timestamp - self->start) >= 1000000000, pid == $target);
	self->start = 0;
}
