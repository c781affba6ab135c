/* A workload for the pid provider: work() is called exactly N times with
 * (i, 2) and returns 2i+1; many() takes eight arguments; alloc() calls
 * malloc(12345) N times. */
#include <stdlib.h>

__attribute__((noinline)) int work(int a, int b) { return a * b + 1; }

__attribute__((noinline)) long many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + b + c + d + e + f + g + h;
}

__attribute__((noinline)) int pick(int x)
{
	if (x > 3)
		return x * 3;
	return -x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long s = 0;
	for (int i = 0; i < n; i++) {
		s += work(i, 2);
		void *volatile p = malloc(12345);
		free(p);
		s += pick(i);
	}
	s += many(1, 2, 3, 4, 5, 6, 7, 8);
	volatile long sink = s;
	(void)sink;
	return 0;
}
