/*
 * A pending SIGUSR1 taken by sigtimedwait() (proc:::signal-clear), an
 * exec that fails (exec, exec-failure), then one that succeeds.
 */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR1);
	struct timespec ts = {1, 0};
	if (sigtimedwait(&set, NULL, &ts) != SIGUSR1)
		return 1;
	/* the paths on the stack: a tracepoint cannot fault in a page of
	 * .rodata not yet touched */
	char bad[32], good[32];
	strcpy(bad, "/nonexistent/sonde-prog");
	strcpy(good, "/bin/true");
	char *argv[] = {"true", NULL};
	execv(bad, argv);
	execv(good, argv);
	return 1;
}
