/* One child process, then one thread: proc:::start and lwp-start each fire once. */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static void *run(void *arg) { return arg; }

int main(void)
{
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
	pthread_t t;
	pthread_create(&t, NULL, run, NULL);
	pthread_join(t, NULL);
	return 0;
}
