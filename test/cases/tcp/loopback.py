# A TCP server and client over loopback (IPv4, or IPv6 with "6"): one
# connection accepted and closed, then one refused once the server is gone.
import socket
import sys

fam, host = (socket.AF_INET6, "::1") if sys.argv[1:] == ["6"] else (socket.AF_INET, "127.0.0.1")
s = socket.socket(fam)
s.bind((host, 0))
s.listen()
addr = s.getsockname()[:2]
c = socket.create_connection(addr)
a, _ = s.accept()
c.close()
a.close()
s.close()
r = socket.socket(fam)
try:
    r.connect(addr)
except ConnectionRefusedError:
    pass
r.close()
