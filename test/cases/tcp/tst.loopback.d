/*
 * A TCP connection over loopback between a server and a client the case
 * starts: the listener's port (learnt when it starts listening, in the
 * process), every state change of the listener, the accepted socket and
 * the client, the accept and connect with the right ports and addresses,
 * then a connection refused once the server is closed.
 */
/* @@opts: -q -c "/usr/bin/python3 loopback.py" */
tcp:::state-change
/pid == $target && args[3]->tcps_state == TCP_STATE_LISTEN/
{
	port = args[3]->tcps_lport;
}

tcp:::state-change
/port != 0 && (args[3]->tcps_lport == port || args[3]->tcps_rport == port)/
{
	printf("%-8s %2d -> %2d local=%d laddr=%s raddr=%s\n",
	    args[3]->tcps_lport == port ? "server" : "client",
	    args[5]->tcps_state, args[3]->tcps_state, args[3]->tcps_local,
	    args[3]->tcps_laddr, args[3]->tcps_raddr);
}

tcp:::accept-established
/args[4]->tcp_dport == port/
{
	printf("accept-established from %s to %s:port, peer port ok %d, flags %x\n",
	    args[2]->ip_saddr, args[2]->ip_daddr,
	    args[4]->tcp_sport == args[3]->tcps_rport && args[4]->tcp_sport != port,
	    args[4]->tcp_flags);
}

tcp:::connect-established, tcp:::connect-refused
/args[4]->tcp_sport == port/
{
	printf("%s from %s:port to %s, state %d, flags %x\n", probename,
	    args[2]->ip_saddr, args[2]->ip_daddr, args[3]->tcps_state, args[4]->tcp_flags);
}
