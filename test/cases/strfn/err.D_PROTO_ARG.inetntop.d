BEGIN { trace(inet_ntop(2, "1.2.3.4")); }
