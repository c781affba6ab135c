#!/usr/sbin/dtrace -s
/*
 * fsrwtime.d: read and write system call times, in microseconds, by file
 * system type, system call and mount point (the DTrace book's
 * fsrwtime.d); runs unchanged on sonde.
 */

#pragma D option quiet

dtrace:::BEGIN
{
	printf("Tracing... Hit Ctrl-C to end.\n");
}

syscall::read:entry,
syscall::write:entry
{
	self->fd = arg0;
	self->start = timestamp;
}

syscall::read:return,
syscall::write:return
/self->start/
{
	this->delta = (timestamp - self->start) / 1000;
	@[fds[self->fd].fi_fs, probefunc, fds[self->fd].fi_mount] =
	    quantize(this->delta);
	self->fd = 0;
	self->start = 0;
}

dtrace:::END
{
	printa("\n  %s %s (us) \t%s%@d", @);
}
