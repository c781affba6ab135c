/* tcp:::send's tcpsinfo_t holds the socket's state, receive's does not (the kernel has not looked the socket up): a clause for both cannot read it, where it read send's layout for receive (0) before. */
tcp:::send, tcp:::receive { trace(args[3]->tcps_state); }
