/*
 * loop: call getppid() N times (argv[1], default 1000000) in a tight loop and
 * print the elapsed nanoseconds per call, measured with CLOCK_MONOTONIC
 * around the loop. With a CPU number as argv[2] it first pins itself there.
 *
 * Built by bench/run: gcc -O2 -o loop loop.c
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec start, end;
	long i;

	if (n <= 0) {
		fprintf(stderr, "usage: loop [N [CPU]]\n");
		return 2;
	}
	if (argc > 2) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid); /* never cached by libc */
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("%.1f\n", ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / n);
	return 0;
}
