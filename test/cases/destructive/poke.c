/* A workload for copyout() and copyoutstr(): poke() is handed a buffer
 * and a long, and prints what they hold once it returns to main, so that
 * what a tracer wrote into them shows. */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) void poke(char *buf, long *n)
{
	__asm__ volatile("" : : "r"(buf), "r"(n) : "memory");
}

int main(void)
{
	char buf[32];
	long n = 7;
	strcpy(buf, "original");
	poke(buf, &n);
	printf("%s %ld\n", buf, n);
	strcpy(buf, "second-original");
	poke(buf, &n);
	printf("%s %ld\n", buf, n);
	return 0;
}
