/*
 * hot: the CPU-bound workload of the profile benchmark, and the program the
 * README's flame graph was made from. It spins through a small call tree
 * whose shares of the CPU are known:
 *
 *	main -> bench_parse  -> bench_hash_block -> bench_mix   400 rounds
 *	                     -> bench_compress   -> bench_mix   200 rounds
 *	     -> bench_render -> bench_mix                       100 rounds
 *	                     -> bench_compress   -> bench_mix   200 rounds
 *
 * so that bench_mix has nearly every sample, under bench_parse 2/3 of them.
 * With PROCS (argv[1], default 1) it forks until PROCS processes spin, one
 * per CPU; with SECONDS (argv[2], default 0: until killed) they exit after
 * that long. Each prints the rounds of the tree it ran.
 *
 * Built by bench/run: gcc -O1 -fno-omit-frame-pointer -o hot hot.c
 *
 * bench_mix keeps its accumulator in a volatile local: a leaf function that
 * never touches the stack gets no frame from gcc even with
 * -fno-omit-frame-pointer, and a frame-pointer unwinder then skips its
 * caller (bench_mix would appear called from bench_parse).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t done;
static volatile unsigned long sink;

static void stop(int sig)
{
	(void)sig;
	done = 1;
}

__attribute__((noinline)) unsigned long bench_mix(unsigned long x, int n)
{
	volatile unsigned long acc = x;
	int i;

	for (i = 0; i < n; i++)
		acc = acc * 6364136223846793005UL + 1442695040888963407UL;
	return acc;
}

__attribute__((noinline)) unsigned long bench_hash_block(unsigned long x)
{
	return bench_mix(x, 400) + 1;
}

__attribute__((noinline)) unsigned long bench_compress(unsigned long x)
{
	return bench_mix(x, 200) + 1;
}

__attribute__((noinline)) unsigned long bench_parse(unsigned long x)
{
	return bench_hash_block(x) ^ bench_compress(x);
}

__attribute__((noinline)) unsigned long bench_render(unsigned long x)
{
	return bench_mix(x, 100) + bench_compress(x);
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 1;
	int seconds = argc > 2 ? atoi(argv[2]) : 0;
	unsigned long x = 1, rounds = 0;
	struct sigaction sa = { .sa_handler = stop };
	pid_t parent = getpid();
	int i;

	if (procs < 1 || seconds < 0) {
		fprintf(stderr, "usage: hot [PROCS [SECONDS]]\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	for (i = 1; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			/* Do not outlive the first process. */
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != parent)
				return 0;
			break;
		}
	}
	if (seconds > 0)
		alarm(seconds);
	while (!done) {
		x = bench_parse(x);
		x = bench_render(x);
		rounds++;
	}
	sink = x;
	printf("%lu\n", rounds);
	fflush(stdout);
	if (getpid() == parent)
		while (wait(NULL) > 0)
			;
	return 0;
}
