/*
 * net.d: the connection description that network protocol providers give
 * as their first translated argument (http, and any provider modelled on
 * DTrace's application protocol providers: nfs, iscsi, ...).
 *
 * Providers fill conninfo_t with translators of their own, declared in
 * their libraries ("#pragma D depends_on library net.d"); clauses read
 *
 *	args[0]->ci_remote	the peer's address, as text
 *
 * Load with sonde -L examples/lib (or install in sonde's library directory).
 */

/* Address families, for inet_ntop() and for translators. */
inline int AF_INET = 2;
inline int AF_INET6 = 10;

/* Which way a packet goes, for providers that say. */
inline int NET_PROBE_OUTBOUND = 0x00;
inline int NET_PROBE_INBOUND = 0x01;

typedef struct conninfo {
	string ci_local;	/* this host's address */
	string ci_remote;	/* the peer's address */
	string ci_protocol;	/* "ipv4", "ipv6", ... */
} conninfo_t;
