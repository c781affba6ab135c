# Three TCP connections over loopback to a server on the port given, each
# carrying 5 bytes from the client (examples/scripts' tcp scripts' test).
import socket
import sys

port = int(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen()
for i in range(3):
    c = socket.create_connection(("127.0.0.1", port))
    a, _ = s.accept()
    c.sendall(b"hello")
    a.recv(5)
    c.close()
    a.close()
s.close()
