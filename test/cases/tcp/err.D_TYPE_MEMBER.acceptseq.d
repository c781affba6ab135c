/* A connection probe has the socket, not the segment: no sequence numbers. */
/* @@stderr: tcp_seq is not a member of tcpinfo_t */
tcp:::accept-established { trace(args[4]->tcp_seq); }
