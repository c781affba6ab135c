package test

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// tcpWorkload returns a port free now and the command that makes three
// connections to a server on it, each carrying 5 bytes.
func tcpWorkload(t *testing.T) (string, string) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	return port, "/usr/bin/python3 cases/tcp/connections.py " + port
}

// The DTrace book's tcpaccept.d and tcpconnect.d, unchanged: the three
// connections are counted under the server's host and port.
func TestTcpAcceptConnect(t *testing.T) {
	for _, script := range []string{"tcpaccept.d", "tcpconnect.d"} {
		port, cmd := tcpWorkload(t)
		out, stderr := runSonde(t, "-s", "../examples/scripts/"+script, "-c", cmd)
		n := -1
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "127.0.0.1" && f[1] == port {
				n, _ = strconv.Atoi(f[2])
			}
		}
		if n != 3 {
			t.Errorf("%s: %d connections to 127.0.0.1:%s, want 3\n%s\n%s", script, n, port, out, stderr)
		}
	}
}

// The DTrace book's tcpio.d, unchanged: each connection's 5 bytes are a
// PUSH|ACK segment sent to the server's port and received on it, and the
// handshakes' SYNs show their flags.
func TestTcpio(t *testing.T) {
	port, cmd := tcpWorkload(t)
	out, stderr := runSonde(t, "-s", "../examples/scripts/tcpio.d", "-c", cmd)
	count := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) != 6 || (!strings.HasSuffix(f[1], ":"+port) && !strings.HasSuffix(f[3], ":"+port)) {
			continue
		}
		count[f[2]+" "+f[4]+" "+strings.TrimRight(f[5], "\b)")]++
	}
	for _, k := range []string{"-> 5 (PUSH|ACK|", "<- 5 (PUSH|ACK|", "-> 0 (SYN|", "<- 0 (SYN|", "-> 0 (SYN|ACK|", "<- 0 (SYN|ACK|"} {
		if count[k] != 3 {
			t.Errorf("%d segments %q to or from port %s, want 3\n%v\n%s\n%s", count[k], k, port, count, out, stderr)
		}
	}
}
