/*
 * A 32-bit program without libc, for err.D_PDESC_INVAL.i386.d: f() returns
 * the immediate 0xc3776655, whose last byte an x86-64 decoder takes for a
 * ret (it reads dec eax; mov eax, imm32 as one 10-byte movabs). A return
 * probe placed there writes int3 into the immediate, and f() returns
 * 0xcc776655. It checks f() 200 times, 20 ms apart, and exits with 1 if
 * any result was wrong.
 */
static int sys(int nr, int a, int b, int c)
{
	int r;
	asm volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

__attribute__((naked, noinline)) int f(void)
{
	asm(".byte 0x48, 0xb8, 0x11, 0x22, 0x33, 0x44\n" /* dec eax; mov eax, 0x44332211 */
	    ".byte 0xb9, 0x55, 0x66, 0x77, 0xc3\n"       /* mov ecx, 0xc3776655 */
	    ".byte 0x89, 0xc8, 0xc3\n");                 /* mov eax, ecx; ret */
}

void _start(void)
{
	int ts[2] = {0, 20000000}, bad = 0;

	for (int i = 0; i < 200; i++) {
		if ((unsigned)f() != 0xc3776655u)
			bad++;
		sys(162, (int)ts, 0, 0); /* nanosleep */
	}
	sys(252, bad ? 1 : 0, 0, 0); /* exit_group */
}
