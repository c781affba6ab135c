/*
 * Touches a known number of fresh pages (argv[1], 20000 by default), each
 * one a page fault, then reports the faults the kernel counted for the
 * whole process (getrusage: minor and major) as the count argument of a
 * write(2) to descriptor -1, which fails with EBADF and writes nothing:
 * a script reads the true count from syscall::write:entry's arg2.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 20000;
	long size = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, pages * size, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * size] = 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return write(-1, p, ru.ru_minflt + ru.ru_majflt) == -1 ? 0 : 1;
}
