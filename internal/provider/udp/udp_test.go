package udp_test

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/provider/udp"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestMatch(t *testing.T) {
	got := providertest.FullNames(providertest.Probes(t, udp.Provider{}, provider.Desc{Provider: "udp"}))
	if want := "udp::net_dev_start_xmit:send udp::netif_receive_skb:receive"; got != want {
		t.Errorf("udp:::: %q, want %q", got, want)
	}
}

// Datagrams sent here over loopback (IPv4 and IPv6) fire send and
// receive once each, with their ports, lengths and addresses, and the
// socket's side the sender's on send and the receiver's on receive.
func TestDatagrams(t *testing.T) {
	p := udp.Provider{}
	needs := provider.Needs{Args: [10]bool{true, true, true, true, true}}
	snd, rcv := providertest.One(t, p, "send"), providertest.One(t, p, "receive")
	ls := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: snd.Hook, Probes: []*provider.Probe{snd}, Needs: needs})
	lr := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: rcv.Hook, Probes: []*provider.Probe{rcv}, Needs: needs})
	for _, c := range []struct {
		network string
		ip      net.IP
		ver     byte
		family  uint64
	}{{"udp4", net.IPv4(127, 0, 0, 1).To4(), 4, 2}, {"udp6", net.IPv6loopback, 6, 10}} {
		r, err := net.ListenUDP(c.network, &net.UDPAddr{IP: c.ip})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		s, err := net.DialUDP(c.network, nil, r.LocalAddr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		to, from := uint16(r.LocalAddr().(*net.UDPAddr).Port), uint16(s.LocalAddr().(*net.UDPAddr).Port)
		for i := 0; i < 3; i++ {
			if _, err := s.Write(make([]byte, 100+i)); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []struct {
			l            *runtimetest.Loaded
			name         string
			lport, rport uint16
		}{{ls, "send", from, to}, {lr, "receive", to, from}} {
			var lengths []int
			for _, f := range k.l.Firings(t) {
				x := f.Xlate
				u16 := func(off int) uint16 { return binary.LittleEndian.Uint16(x[off:]) }
				if u16(164) != from || u16(166) != to {
					continue // the machine's other datagrams
				}
				lengths = append(lengths, int(u16(184)))
				if x[160] != c.ver || int(u16(162)) != int(u16(184)) || u16(104) != k.lport || u16(106) != k.rport {
					t.Errorf("%s %s: ip_ver %d plength %d udp_length %d, socket side %d -> %d", c.network, k.name, x[160], u16(162), u16(184), u16(104), u16(106))
				}
				for _, off := range []int{0, 24, 48, 72} {
					if !net.IP(x[off:off+len(c.ip)]).Equal(c.ip) || binary.LittleEndian.Uint64(x[off+16:]) != c.family {
						t.Errorf("%s %s: address at %d: % x", c.network, k.name, off, x[off:off+24])
					}
				}
			}
			if len(lengths) != 3 || lengths[0] != 108 || lengths[1] != 109 || lengths[2] != 110 {
				t.Errorf("%s %s: udp_length %v, want [108 109 110]", c.network, k.name, lengths)
			}
		}
	}
}
