/*
 * udp:::send and udp:::receive of three datagrams the case's process
 * sends itself over loopback: each sent and received once, its length
 * (the UDP header's 8 bytes and 10, 11, 12 of data) as udpinfo_t and
 * ipinfo_t give it, the addresses, and the socket's side (udpsinfo_t)
 * the sender's on send and the receiver's on receive.
 */
/* @@opts: -q -c "/usr/bin/python3 datagrams.py" */
udp:::send
/pid == $target && port == 0/
{
	port = args[4]->udp_dport;
	from = args[4]->udp_sport;
}

udp:::send, udp:::receive
/port != 0 && args[4]->udp_dport == port && args[4]->udp_sport == from/
{
	printf("%-7s %s -> %s length=%d plength=%d side ok %d\n", probename,
	    args[2]->ip_saddr, args[2]->ip_daddr, args[4]->udp_length,
	    args[2]->ip_plength,
	    probename == "send" ? args[3]->udps_lport == from && args[3]->udps_rport == port :
	    args[3]->udps_lport == port && args[3]->udps_rport == from);
}
