/* A program that loads a library after it has started: dlmain LIB N MODE
 * waits until the tracer's probe on marker() is in place (its first byte
 * turns into the int3 of a uprobe), then dlopen()s LIB, waits until the
 * tracer has instrumented it too (MODE "pid": the first byte of work();
 * "usdt": the library's work probe is enabled), and calls work(i) for i
 * in 0..N-1. Nothing is timed: if the tracer never instruments the
 * library, the program gives up after 20 s and exits 2. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dlw.h"

__attribute__((noinline)) void marker(void) { __asm__ __volatile__(""); }

static int probed(void *fn) { return *(volatile unsigned char *)fn == 0xcc; }

static int await(int (*ok)(void *), void *arg)
{
	for (int i = 0; i < 2000; i++) {
		if (ok(arg))
			return 1;
		usleep(10000);
	}
	return 0;
}

static int (*enabled)(void);
static int isenabled(void *unused) { (void)unused; return enabled(); }

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: dlmain LIB N pid|usdt\n");
		return 2;
	}
	if (!await(probed, (void *)marker)) {
		fprintf(stderr, "dlmain: marker() never probed\n");
		return 2;
	}
	marker();
	DLW_READY();
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "dlmain: %s\n", dlerror());
		return 2;
	}
	int (*work)(int) = (int (*)(int))dlsym(h, "work");
	enabled = (int (*)(void))dlsym(h, "work_enabled");
	if (work == NULL || enabled == NULL) {
		fprintf(stderr, "dlmain: %s\n", dlerror());
		return 2;
	}
	int ok = strcmp(argv[3], "pid") == 0 ? await(probed, (void *)work) : await(isenabled, NULL);
	if (!ok) {
		fprintf(stderr, "dlmain: %s never instrumented\n", argv[1]);
		return 2;
	}
	long s = 0;
	for (int i = 0, n = atoi(argv[2]); i < n; i++)
		s += work(i);
	return s == 0;
}
