# Three UDP datagrams of 10, 11 and 12 bytes over loopback (IPv4, or IPv6
# with "6"), from a socket of this process to another.
import socket
import sys

fam, host = (socket.AF_INET6, "::1") if sys.argv[1:] == ["6"] else (socket.AF_INET, "127.0.0.1")
r = socket.socket(fam, socket.SOCK_DGRAM)
r.bind((host, 0))
s = socket.socket(fam, socket.SOCK_DGRAM)
for i in range(3):
    s.sendto(b"x" * (10 + i), r.getsockname()[:2])
for i in range(3):
    r.recv(100)
