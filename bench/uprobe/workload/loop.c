/* The uprobe benchmark's workload: calls target() (or fires the tick USDT
 * probe) n times and prints the nanoseconds per iteration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "loop.h"

__attribute__((noinline)) long target(long i)
{
	__asm__ __volatile__("" ::: "memory");
	return i + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000000, s = 0;
	int usdt = argc > 1 && strcmp(argv[1], "usdt") == 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (usdt) {
		for (long i = 0; i < n; i++) {
			LOOP_TICK(i);
			s += i;
		}
	} else {
		for (long i = 0; i < n; i++)
			s += target(i);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%.1f\n", ns / n + (s == 42 ? 1 : 0) * 0.0);
	return 0;
}
