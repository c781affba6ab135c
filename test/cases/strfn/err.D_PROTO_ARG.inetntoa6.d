BEGIN { trace(inet_ntoa6((ipaddr_t *)alloca(16))); }
