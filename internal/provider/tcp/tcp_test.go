package tcp_test

import (
	"encoding/binary"
	"net"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/provider/tcp"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		d    provider.Desc
		want string
	}{
		{provider.Desc{Provider: "tcp"}, "tcp::inet_sock_set_state:state-change tcp::inet_sock_set_state:connect-established " +
			"tcp::tcp_receive_reset:connect-refused tcp::inet_sock_set_state:accept-established " +
			"tcp::net_dev_start_xmit:send tcp::netif_receive_skb:receive"},
		{provider.Desc{Provider: "tcp", Name: "*-established"}, "tcp::inet_sock_set_state:connect-established tcp::inet_sock_set_state:accept-established"},
		// documented as absent
		{provider.Desc{Provider: "tcp", Name: "connect-request"}, ""},
		{provider.Desc{Provider: "tcp", Name: "accept-refused"}, ""},
		{provider.Desc{Provider: "udp", Name: "state-change"}, ""},
	} {
		if got := providertest.FullNames(providertest.Probes(t, tcp.Provider{}, c.d)); got != c.want {
			t.Errorf("%s: %q, want %q", c.d, got, c.want)
		}
	}
	for _, p := range providertest.Probes(t, tcp.Provider{}, provider.Desc{Provider: "tcp"}) {
		var args []string
		for _, a := range p.Args {
			args = append(args, a.XType)
		}
		want := "pktinfo_t * csinfo_t * ipinfo_t * tcpsinfo_t * tcpinfo_t *"
		if p.Name == "state-change" {
			want = " csinfo_t *  tcpsinfo_t *  tcplsinfo_t *"
		}
		if got := strings.Join(args, " "); got != want {
			t.Errorf("%s: args %q, want %q", p.FullName(), got, want)
		}
	}
}

// accept-established and connect-established of a loopback connection
// made here: the ports, addresses, state and flags from the socket.
func TestEstablished(t *testing.T) {
	p := tcp.Provider{}
	needs := provider.Needs{Args: [10]bool{true, true, true, true, true}}
	acc := providertest.One(t, p, "accept-established")
	con := providertest.One(t, p, "connect-established")
	la := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: acc.Hook, Probes: []*provider.Probe{acc}, Needs: needs})
	lc := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: con.Hook, Probes: []*provider.Probe{con}, Needs: needs})
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	server := uint16(ln.Addr().(*net.TCPAddr).Port)
	client := uint16(c.LocalAddr().(*net.TCPAddr).Port)
	for _, k := range []struct {
		l            *runtimetest.Loaded
		lport, rport uint16
		sport, dport uint16
		flags        byte
		name         string
	}{
		{la, server, client, client, server, 0x10, "accept-established"},
		{lc, client, server, server, client, 0x12, "connect-established"},
	} {
		found := 0
		for _, f := range k.l.Firings(t) {
			x := f.Xlate
			u16 := func(off int) uint16 { return binary.LittleEndian.Uint16(x[off:]) }
			if u16(104) != k.lport || u16(106) != k.rport {
				continue // another connection of the machine's
			}
			found++
			if u16(164) != k.sport || u16(166) != k.dport || x[168] != k.flags || x[160] != 4 ||
				binary.LittleEndian.Uint32(x[108:]) != 1 || binary.LittleEndian.Uint32(x[112:]) != 1 {
				t.Errorf("%s: tcpinfo ports %d %d flags %#x, ip_ver %d, state %d, local %d", k.name,
					u16(164), u16(166), x[168], x[160], binary.LittleEndian.Uint32(x[108:]), binary.LittleEndian.Uint32(x[112:]))
			}
			for _, off := range []int{0, 24, 48, 72} { // 127.0.0.1, AF_INET
				if !net.IP(x[off:off+4]).Equal(net.IPv4(127, 0, 0, 1)) || binary.LittleEndian.Uint64(x[off+16:]) != 2 {
					t.Errorf("%s: address at %d: % x", k.name, off, x[off:off+24])
				}
			}
		}
		if found != 1 {
			t.Errorf("%s fired %d times for the connection %d -> %d", k.name, found, client, server)
		}
	}
}
