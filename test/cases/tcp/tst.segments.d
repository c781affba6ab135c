/*
 * tcp:::send and tcp:::receive of the segments of a loopback connection
 * (the case's server and client, loopback.py): the SYN and SYN-ACK each
 * sent and received once, by the right side, with a TCP header of 20 to 60
 * bytes within the IP payload; the SYN and RST of the refused connection;
 * and for every segment the socket's side (tcpsinfo_t) on the right end.
 */
/* @@opts: -q -c "/usr/bin/python3 loopback.py" */
tcp:::state-change
/pid == $target && args[3]->tcps_state == TCP_STATE_LISTEN/
{
	port = args[3]->tcps_lport;
}

tcp:::send, tcp:::receive
/port != 0 && (args[4]->tcp_sport == port || args[4]->tcp_dport == port)/
{
	this->toserver = args[4]->tcp_dport == port;
	this->mine = probename == "send" ? args[4]->tcp_sport : args[4]->tcp_dport;
	sides += args[3]->tcps_lport == this->mine && args[3]->tcps_local == 1 &&
	    args[2]->ip_saddr == "127.0.0.1" && args[2]->ip_daddr == "127.0.0.1";
	segments++;
}

tcp:::send, tcp:::receive
/port != 0 && (args[4]->tcp_sport == port || args[4]->tcp_dport == port) &&
    (args[4]->tcp_flags & (TH_SYN | TH_RST))/
{
	printf("%-7s %s %s%s%s header ok %d\n", probename,
	    this->toserver ? "client->server" : "server->client",
	    args[4]->tcp_flags & TH_SYN ? "SYN" : "",
	    args[4]->tcp_flags & TH_RST ? "RST" : "",
	    args[4]->tcp_flags & TH_ACK ? "|ACK" : "",
	    args[4]->tcp_offset >= 20 && args[4]->tcp_offset <= 60 &&
	    args[2]->ip_plength >= args[4]->tcp_offset);
}

END
{
	printf("every segment's socket side right: %d\n", sides == segments && segments > 6);
}
