#!/usr/sbin/dtrace -s
/*
 * tcpaccept.d: inbound TCP connections accepted, by remote host and
 * local port (the DTrace book's tcpaccept.d, from its network chapter);
 * runs unchanged on sonde.
 */

#pragma D option quiet
#pragma D option switchrate=10hz

dtrace:::BEGIN
{
	printf("Tracing... Hit Ctrl-C to end.\n");
}

tcp:::accept-established
{
	@num[args[2]->ip_saddr, args[4]->tcp_dport] = count();
}

dtrace:::END
{
	printf("   %-26s %-8s %8s\n", "HOSTNAME", "PORT", "COUNT");
	printa("   %-26s %-8d %@8d\n", @num);
}
