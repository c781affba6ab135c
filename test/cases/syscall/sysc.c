/*
 * sysc: a workload making exact numbers of system calls, for the syscall
 * cases.  Usage: sysc [getppid [close(-1) [nanosleep [newfstatat("/") [statx("/")]]]]]
 * Every call is made with syscall(2) so that libc cannot cache or substitute it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int arg(int argc, char **argv, int i) { return argc > i ? atoi(argv[i]) : 0; }

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 1000 };
	struct stat st;
	char stx[512];
	int i;

	for (i = 0; i < arg(argc, argv, 1); i++)
		syscall(SYS_getppid);
	for (i = 0; i < arg(argc, argv, 2); i++)
		syscall(SYS_close, -1);
	for (i = 0; i < arg(argc, argv, 3); i++)
		syscall(SYS_nanosleep, &ts, NULL);
	for (i = 0; i < arg(argc, argv, 4); i++)
		syscall(SYS_newfstatat, AT_FDCWD, "/", &st, 0);
	for (i = 0; i < arg(argc, argv, 5); i++)
		syscall(SYS_statx, AT_FDCWD, "/", 0, 0x7ff, stx);
	return 0;
}
