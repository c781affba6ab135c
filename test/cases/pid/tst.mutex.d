/* The seed's mutex hunt (pid$1::___lwp_mutex_timedlock) on Linux: pthread_mutex_lock timed per thread with self->, entry and return paired exactly (4 threads x 1000 calls). */
/* @@setup: gcc -O2 -o /tmp/sonde-lock lock.c -lpthread */
/* @@opts: -q -c /tmp/sonde-lock */
pid$target::pthread_mutex_lock:entry /tid != pid/ { self->ts = timestamp; }
pid$target::pthread_mutex_lock:return /self->ts/
{
	@calls = count();
	@perthread[tid] = count();
	@waited = sum(timestamp - self->ts);
	self->ts = 0;
}
END
{
	printa("calls %@d\n", @calls);
	printa("%@d\n", @perthread);
	normalize(@waited, 1000000000000);
	printa("waited less than 1000 s: %@d\n", @waited);
}
