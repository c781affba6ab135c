/*
 * A kernel struct read through a tracepoint's pointer argument: the
 * struct sock (and struct inet_sock) behind sock:inet_sock_set_state's
 * skaddr gives the ports the tracepoint's own fields hold, for every TCP
 * state change of a loopback connection (members reached through the
 * anonymous unions and structs of struct sock_common).
 */
/* @@opts: -q -c "python3 loopback.py" */
tracepoint:sock::inet_sock_set_state /args->protocol == 6 && args->family == 2/
{
	this->sk = (struct sock *)args->skaddr;
	this->same = ntohs(((struct sock *)args->skaddr)->__sk_common.skc_dport) == args->dport &&
	    ntohs(((struct inet_sock *)this->sk)->inet_sport) == args->sport &&
	    this->sk->__sk_common.skc_family == args->family;
	same += this->same;
	differ += !this->same;
}
END { printf("same>0=%d differ=%d\n", same > 0, differ); }
