/*
 * threads: the main thread calls getppid() once, then two threads call it
 * 3 and 5 times and exit (SYS_exit); then the process exits (exit_group).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *run(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;

	syscall(SYS_getppid);
	pthread_create(&t1, NULL, run, (void *)3);
	pthread_join(t1, NULL);
	pthread_create(&t2, NULL, run, (void *)5);
	pthread_join(t2, NULL);
	return 0;
}
