package ip_test

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/ip"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestMatch(t *testing.T) {
	got := providertest.FullNames(providertest.Probes(t, ip.Provider{}, provider.Desc{Provider: "ip"}))
	if want := "ip::net_dev_start_xmit:send ip::netif_receive_skb:receive"; got != want {
		t.Errorf("ip:::: %q, want %q", got, want)
	}
}

// A datagram sent here over loopback is an IP packet sent and received on
// lo, its payload the UDP header and data.
func TestLoopback(t *testing.T) {
	p := ip.Provider{}
	needs := provider.Needs{Args: [10]bool{true, true, true, true}}
	snd, rcv := providertest.One(t, p, "send"), providertest.One(t, p, "receive")
	ls := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: snd.Hook, Probes: []*provider.Probe{snd}, Needs: needs})
	lr := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: rcv.Hook, Probes: []*provider.Probe{rcv}, Needs: needs})
	r, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := net.DialUDP("udp4", nil, r.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const size = 1234 // a length no other packet is likely to have now
	if _, err := s.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*runtimetest.Loaded{ls, lr} {
		n := 0
		for _, f := range l.Firings(t) {
			x := f.Xlate
			if binary.LittleEndian.Uint16(x[162:]) != size+8 || x[160] != 4 {
				continue
			}
			n++
			if string(x[192:195]) != "lo\x00" || x[208] != 1 {
				t.Errorf("ifinfo: name %q, if_local %d", x[192:208], x[208])
			}
			if !net.IP(x[48:52]).Equal(net.IPv4(127, 0, 0, 1)) || !net.IP(x[72:76]).Equal(net.IPv4(127, 0, 0, 1)) {
				t.Errorf("addresses % x, % x", x[48:52], x[72:76])
			}
		}
		if n != 1 {
			t.Errorf("%d packets with a payload of %d bytes, want 1", n, size+8)
		}
	}
}
