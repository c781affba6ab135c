# One TCP connection over loopback, accepted and closed: the state changes
# of a client, a listener and an accepted socket.
import socket

s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
c = socket.create_connection(s.getsockname())
a, _ = s.accept()
c.close()
a.close()
s.close()
