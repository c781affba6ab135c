/*
 * A 64-bit program making 32-bit system calls with int $0x80, for
 * tst.int80.d: argv[1] times i386's getpid (20, amd64's writev), then
 * once i386's close(-1) (6, amd64's close is 3; 6 is lstat).
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, r;

	for (long i = 0; i < n; i++)
		asm volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	asm volatile("int $0x80" : "=a"(r) : "a"(6L), "b"(-1L) : "memory");
	return r == -9 ? 0 : 1;
}
