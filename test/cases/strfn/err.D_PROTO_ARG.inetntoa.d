BEGIN { trace(inet_ntoa(arg0)); }
