/*
 * ip:::send and ip:::receive of three datagrams the case's process sends
 * itself over IPv4 loopback (sizes.py): each an IPv4 packet sent and
 * received on lo, its payload the UDP header and data.
 */
/* @@opts: -q -c "/usr/bin/python3 sizes.py" */
ip:::send, ip:::receive
/args[2]->ip_plength >= 1231 && args[2]->ip_plength <= 1233 &&
    args[2]->ip_saddr == "127.0.0.1" && args[2]->ip_daddr == "127.0.0.1"/
{
	@[probename, args[2]->ip_ver, args[2]->ip_plength, args[3]->if_name,
	    args[3]->if_local] = count();
}

END
{
	printa("%-8s IPv%d payload %d on %s (loopback %d): %@d\n", @);
}
