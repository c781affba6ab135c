#!/usr/sbin/dtrace -s
/*
 * commands.d: memcached's own probes (its memcached_dtrace.d provider),
 * in a memcached built with --enable-dtrace DTRACE=sonde: each set and get
 * with its key and value size, until the second get; then how many
 * connections were allocated and whether the hash table was searched.
 */

#pragma D option quiet

memcached$target:::command-set
{
	printf("set %s, %d bytes\n", substr(copyinstr(arg1), 0, arg2), arg3);
}

memcached$target:::command-get
{
	printf("get %s, %d bytes\n", substr(copyinstr(arg1), 0, arg2), arg3);
	gets++;
}

memcached$target:::assoc-find
{
	finds++;
}

memcached$target:::conn-allocate
{
	conns++;
}

memcached$target:::command-get
/gets == 2/
{
	printf("connections %d, hash lookups>0 %d\n", conns, finds > 0);
	exit(0);
}
