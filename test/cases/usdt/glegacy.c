/*
 * Reads a semaphore as objects compiled against sys/sdt.h-style headers
 * do: declared here, defined by the object sonde -G writes.
 */
extern volatile unsigned short reachg_tick_semaphore;

int legacy_enabled(void)
{
	return reachg_tick_semaphore != 0;
}
