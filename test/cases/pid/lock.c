/* The seed's lock hunt, on Linux: four threads take one mutex 1000 times
 * each, holding it a moment, so that they wait for each other. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile long shared;

__attribute__((noinline)) static void hold(void)
{
	for (int i = 0; i < 200; i++)
		shared++;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&mu);
		hold();
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return shared != 4 * 1000 * 200;
}
