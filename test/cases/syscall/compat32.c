/*
 * A 32-bit program without libc, for tst.compat32.d: its system calls go
 * through int $0x80 with i386's numbers (getpid is 20, amd64's writev).
 * 1234 getpid, 617 write(2, "x\n", 2), 3 close(-1) failing with EBADF,
 * 55 getuid32 and 5 _llseek(-1, ...) failing with EBADF (i386's own calls,
 * which amd64 has no call of that name for), then exit_group(7).
 */
static int sys(int nr, int a, int b, int c)
{
	int r;
	asm volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

static const char msg[] = "x\n";

void _start(void)
{
	for (int i = 0; i < 1234; i++)
		sys(20, 0, 0, 0);
	for (int i = 0; i < 617; i++)
		sys(4, 2, (int)msg, 2);
	for (int i = 0; i < 3; i++)
		sys(6, -1, 0, 0);
	for (int i = 0; i < 55; i++)
		sys(199, 0, 0, 0);
	for (int i = 0; i < 5; i++)
		sys(140, -1, 0, 0);
	sys(252, 7, 0, 0);
	for (;;)
		;
}
