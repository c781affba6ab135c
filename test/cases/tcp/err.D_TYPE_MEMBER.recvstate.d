/* The state of the socket of a segment received is not known where receive fires: absent. */
/* @@stderr: tcps_state is not a member of tcpsinfo_t */
tcp:::receive { trace(args[3]->tcps_state); }
