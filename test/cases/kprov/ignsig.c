/*
 * SIGUSR1, handled, and SIGUSR2, ignored, sent to itself: under sonde -c
 * the process is traced, and Linux then delivers the signals it ignores.
 */
#include <signal.h>
#include <unistd.h>

static void handler(int sig) { (void)sig; }

int main(void)
{
	signal(SIGUSR1, handler);
	signal(SIGUSR2, SIG_IGN);
	kill(getpid(), SIGUSR2);
	kill(getpid(), SIGUSR1);
	return 0;
}
