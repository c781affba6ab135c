/*
 * tst.redzone.d's workload: fill() is a leaf function (gcc -O1) that keeps
 * a struct in the red zone below %rsp and fires a USDT probe between
 * filling it and summing it. A probe site must not write there: the
 * program checks every sum and prints how many were wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include "redzone.h"

struct rec {
	long a, b, c, d, e, f;
};

__attribute__((noinline)) long fill(long i)
{
	volatile struct rec r;

	r.a = i;
	r.b = i * 3;
	r.c = i + 7;
	r.d = i ^ 0x55;
	r.e = i * i;
	r.f = i - 1;
	RZ_FILL(i, r.f);
	return r.a + r.b + r.c + r.d + r.e + r.f;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, bad = 0;

	for (long i = 0; i < n; i++)
		if (fill(i) != i + i * 3 + (i + 7) + (i ^ 0x55) + i * i + (i - 1))
			bad++;
	printf("calls %ld mismatches %ld\n", n, bad);
	return 0;
}
