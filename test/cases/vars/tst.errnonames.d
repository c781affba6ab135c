/* The errno names are Linux's numbers, all of uapi errno.h: a connect to a closed port fails with ECONNREFUSED, and the rarer names have the kernel's values. */
/* @@opts: -q -c "bash -c 'exec 2>/dev/null; echo > /dev/tcp/127.0.0.1/1; true'" */
syscall::connect:return
/pid == $target && errno == ECONNREFUSED/
{
	printf("connect: ECONNREFUSED (%d)\n", errno);
}

END
{
	printf("%d %d %d %d %d\n", EPERM, ENOENT, EAGAIN, EWOULDBLOCK, EDEADLOCK);
	printf("%d %d %d %d %d\n", ECONNABORTED, ENETDOWN, ECONNRESET, EHOSTUNREACH, ENOTSUP);
	printf("%d %d %d %d\n", ELOOP, EOVERFLOW, ECANCELED, EHWPOISON);
}
