#!/usr/sbin/dtrace -s
/*
 * fsrwcount.d: read and write system calls counted by file system type,
 * system call and mount point (the DTrace book's fsrwcount.d, from its
 * file system chapter); runs unchanged on sonde.
 */

#pragma D option quiet

dtrace:::BEGIN
{
	printf("Tracing... Hit Ctrl-C to end.\n");
}

syscall::*read*:entry,
syscall::*write*:entry
{
	@[fds[arg0].fi_fs, probefunc, fds[arg0].fi_mount] = count();
}

dtrace:::END
{
	printf("  %-9s %-16s %-40s %7s\n", "FS", "SYSCALL", "MOUNTPOINT", "COUNT");
	printa("  %-9.9s %-16s %-40s %@7d\n", @);
}
