/* inet_ntop(), inet_ntoa() and inet_ntoa6() of addresses copied in from a
   process. IPv6 as DTrace writes it (DIF_SUBR_INET_NTOP): lower-case groups,
   the longest run of zero groups as its scan finds it (a single group
   counts) written "::", IPv4-mapped and -compatible addresses (but :: and
   ::1) ending in dotted decimal, all that inet_ntoa6() shows of them. */
/* @@setup: gcc -O1 -o /tmp/sonde-inet inet.c */
/* @@opts: -q -c '/tmp/sonde-inet 0.0.0.0 127.0.0.1 255.255.255.255 10.0.100.9 ::1 :: ::ffff:1.2.3.4 ::1.2.3.4 ::0.0.0.1 2001:db8::1 fe80::214:4fff:fe0b:76c8 1:: 2001:db8:0:1:1:1:1:1 2001:0:1:0:0:1:0:1 1:0:0:2:0:0:0:3 ::ffff:0.0.0.0 ff02::2 0:0:1::' */
syscall::write:entry /pid == $target && arg2 == 4/ { this->a = copyin(arg1, 4); printf("%s %s\n", inet_ntop(2, this->a), inet_ntoa((ipaddr_t *)this->a)); }
syscall::write:entry /pid == $target && arg2 == 16/ { this->a = copyin(arg1, 16); printf("%-28s %s\n", inet_ntop(10, this->a), inet_ntoa6((in6_addr_t *)this->a)); }
