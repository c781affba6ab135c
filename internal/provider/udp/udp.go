// Package udp is the udp provider: UDP datagrams as network devices send
// and receive them, on the kernel's stable tracepoints (BTF-typed raw
// tracepoints on the sk_buff).
//
//	send     net_dev_start_xmit of a UDP datagram
//	receive  netif_receive_skb of a UDP datagram
//
// args[0] is a pktinfo_t (pkt_addr NULL, as in DTrace), args[1] a csinfo_t
// (cs_addr 0: the socket is not known here), args[2] an ipinfo_t, args[3]
// a udpsinfo_t (the ports and addresses of the socket's side of the
// datagram: its source when sent, its destination when received), args[4]
// a udpinfo_t (udp_sport, udp_dport, udp_length, udp_checksum). udps_addr
// and udp_hdr are absent.
package udp

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/inet"
)

// Provider implements provider.Provider.
type Provider struct{ provider.OneProbePerHook }

// Name implements provider.Provider.
func (Provider) Name() string { return "udp" }

var args = []provider.Arg{
	inet.Arg("struct sk_buff *", inet.PktinfoT), inet.Arg("struct sk_buff *", inet.CsinfoT),
	inet.Arg("struct sk_buff *", inet.IpinfoT), inet.Arg("struct sk_buff *", inet.UdpsinfoT),
	inet.Arg("struct sk_buff *", inet.UdpinfoT),
}

var defs = inet.WireProbes(args)

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	return provider.HookProbes(p, defs, d), nil
}

// Prologue implements provider.Provider.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	return inet.WirePrologue(probes, inet.ProtoUDP, n, skip), nil
}

// Attributes implements provider.Attributed: illumos's for udp.
func (Provider) Attributes() provider.Pattr { return provider.StableSDTAttr }
