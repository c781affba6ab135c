/*
 * A 32-bit program without libc, for tst.procexec32.d: its system calls go
 * through int $0x80 with i386's numbers, which name other calls in amd64's
 * table. In order: 5 timerfd_create(-1, 0) failing with EINVAL (i386 322,
 * amd64's execveat), 3 oldolduname(NULL) failing with EFAULT (i386 59,
 * amd64's execve); a pending SIGUSR1 taken by rt_sigtimedwait (i386 177;
 * amd64's is 128), then a SIGUSR2 by rt_sigtimedwait_time64 (421); an
 * execve (11) and an execveat (358) of a path that does not exist, then
 * an execve of /bin/true.
 */
static int sys(int nr, int a, int b, int c)
{
	int r;
	asm volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

static int sys5(int nr, int a, int b, int c, int d, int e)
{
	int r;
	asm volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
	return r;
}

/* the paths are copied to the stack: a tracepoint cannot fault in a page
 * of .rodata not yet touched */
static void copy(char *to, const char *from)
{
	while ((*to++ = *from++))
		;
}

void _start(void)
{
	for (int i = 0; i < 5; i++)
		sys(322, -1, 0, 0);
	for (int i = 0; i < 3; i++)
		sys(59, 0, 0, 0);
	unsigned int set[2] = {(1u << 9) | (1u << 11), 0}; /* SIGUSR1, SIGUSR2 */
	sys5(175, 0, (int)set, 0, 8, 0); /* rt_sigprocmask(SIG_BLOCK, set, NULL, 8) */
	int pid = sys(20, 0, 0, 0);
	int ts32[2] = {1, 0};
	long long ts64[2] = {1, 0};
	unsigned int one[2] = {1u << 9, 0};
	sys(37, pid, 10, 0);
	if (sys5(177, (int)one, 0, (int)ts32, 8, 0) != 10)
		sys(252, 1, 0, 0);
	one[0] = 1u << 11;
	sys(37, pid, 12, 0);
	if (sys5(421, (int)one, 0, (int)ts64, 8, 0) != 12)
		sys(252, 2, 0, 0);
	char bad[32], badat[32], good[32];
	copy(bad, "/nonexistent/sonde-exec32");
	copy(badat, "/nonexistent/sonde-exec32at");
	copy(good, "/bin/true");
	char *argv[] = {good, 0};
	sys(11, (int)bad, (int)argv, 0);
	sys5(358, -100, (int)badat, (int)argv, 0, 0); /* AT_FDCWD */
	sys(11, (int)good, (int)argv, 0);
	sys(252, 3, 0, 0);
	for (;;)
		;
}
