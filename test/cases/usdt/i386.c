/*
 * A 32-bit program without libc, for tst.i386.d: fires audx:::tick 1000
 * times, when enabled (its semaphore), with arguments i and -3 * i.
 */
/* i386prov.h, made by sonde -h, is given with -include */

void _start(void)
{
	for (int i = 0; i < 1000; i++) {
		if (AUDX_TICK_ENABLED())
			AUDX_TICK(i, -3 * i);
	}
	asm volatile("int $0x80" : : "a"(252), "b"(0)); /* exit_group(0) */
	for (;;)
		;
}
