# Three UDP datagrams over IPv4 loopback with 1223, 1224 and 1225 bytes of
# data (IP payloads of 1231 to 1233 bytes, sizes no other loopback
# traffic of the machine is likely to have at the time).
import socket

r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3):
    s.sendto(b"x" * (1223 + i), r.getsockname())
for i in range(3):
    r.recv(2000)
