/* @@setup: gcc -O1 -o /tmp/sonde-sysc ../syscall/sysc.c */
/* @@opts: -q -C -c '/tmp/sonde-sysc 0 3' */
/*
 * With -C, the machine's system headers can be included for their macros:
 * their C declarations (prototypes, externs, inline functions,
 * __attribute__, __restrict, __asm__ labels, glibc's typedefs) are
 * skipped, and glibc's errno macro stays D's errno. The values are the
 * kernel's ABI (mmap(2), errno(3), signal(7)).
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>

syscall::close:return
/pid == $target && errno == EBADF/
{
	@bad = count();
}

END
{
	printf("PROT_READ|PROT_WRITE %d PROT_EXEC %d\n", PROT_READ | PROT_WRITE, PROT_EXEC);
	printf("MAP_SHARED %d MAP_PRIVATE %d MAP_ANONYMOUS %#x MAP_FAILED %d\n", MAP_SHARED, MAP_PRIVATE,
	    MAP_ANONYMOUS, (long)MAP_FAILED);
	printf("EAGAIN %d ENOENT %d EBADF %d\n", EAGAIN, ENOENT, EBADF);
	printf("SIGUSR1 %d SIGKILL %d SIGCHLD %d\n", SIGUSR1, SIGKILL, SIGCHLD);
	printf("O_CREAT %#o\n", O_CREAT);
	printa("close(-1) failed with EBADF %@d times\n", @bad);
}
