/*
 * The program of the README's flame graph (docs/flamegraph.svg): a call
 * tree that is part computation, part system calls, so that the graph
 * shows user frames and, on them, the kernel frames of read(2) and
 * write(2). It runs for SECONDS (argv[1], default 3).
 *
 *	gcc -O1 -fno-omit-frame-pointer -o /tmp/demo docs/flamegraph.c
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1024 * 1024];
static volatile unsigned long sink;

__attribute__((noinline)) void load(int fd)
{
	if (read(fd, buf, sizeof(buf)) != sizeof(buf))
		exit(1);
}

__attribute__((noinline)) unsigned long checksum(const char *p, size_t n)
{
	volatile unsigned long sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum = sum * 31 + p[i];
	return sum;
}

__attribute__((noinline)) void format(int fd, unsigned long sum)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%lu\n", sum);

	if (write(fd, line, n) != n)
		exit(1);
}

__attribute__((noinline)) void store(int fd)
{
	if (write(fd, buf, sizeof(buf)) != sizeof(buf))
		exit(1);
}

__attribute__((noinline)) void step(int in, int out)
{
	load(in);
	sink = checksum(buf, sizeof(buf) / 16);
	format(out, sink);
	store(out);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	struct timespec t0, t;

	if (in < 0 || out < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		step(in, out);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return 0;
}
