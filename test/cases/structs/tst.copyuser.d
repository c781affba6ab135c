/* @@opts: -q -c 'sleep 1' */
/* A struct copied whole from user memory: from copyin()'s buffer and
   through a userland pointer. sleep 1 asks clock_nanosleep(2) for 1 s
   and 0 ns. */
struct timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};
self struct timespec a;
struct timespec b[int];

syscall::clock_nanosleep:entry
/pid == $target/
{
	self->a = *(struct timespec *)copyin(arg2, sizeof (struct timespec));
	b[pid] = *(userland struct timespec *)arg2;
	printf("%d %d %d %d\n", self->a.tv_sec, self->a.tv_nsec, b[pid].tv_sec, b[pid].tv_nsec);
	printf("%d\n", sizeof (self->a));
}
