#!/usr/sbin/dtrace -s
/*
 * tcpconnect.d: outbound TCP connections established, by remote host and
 * port (the DTrace book's tcpconnect.d); runs unchanged on sonde.
 */

#pragma D option quiet
#pragma D option switchrate=10hz

dtrace:::BEGIN
{
	printf("Tracing... Hit Ctrl-C to end.\n");
}

tcp:::connect-established
{
	@num[args[2]->ip_saddr, args[4]->tcp_sport] = count();
}

dtrace:::END
{
	printf("   %-26s %-8s %8s\n", "HOSTNAME", "PORT", "COUNT");
	printa("   %-26s %-8d %@8d\n", @num);
}
