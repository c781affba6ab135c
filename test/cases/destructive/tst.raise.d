/* raise() sends the signal to the thread that fired the probe, in the kernel: the traced sleep dies of it at once. */
/* @@opts: -w -q -c 'sleep 10' */
/* @@stderr: terminated by SIGUSR1 */
syscall::clock_nanosleep:entry /pid == $target/
{
	raise(SIGUSR1);
	printf("raised\n");
}
