// Package ip is the ip provider: IP packets as network devices send and
// receive them, on the kernel's stable tracepoints (BTF-typed raw
// tracepoints on the sk_buff).
//
//	send     net_dev_start_xmit: a device is given an IPv4 or IPv6 packet
//	receive  netif_receive_skb: a device hands one to the stack
//
// args[0] is a pktinfo_t (pkt_addr NULL, as in DTrace), args[1] a csinfo_t
// (cs_addr the TCP socket that sent a segment, else 0), args[2] an
// ipinfo_t (ip_ver, ip_plength, ip_saddr, ip_daddr), args[3] an ifinfo_t
// (if_name, if_local: a loopback device). Packets over loopback fire both
// probes, as in DTrace. A segmentation-offloaded send is one large packet,
// as the device gets it. ipv4info_t and ipv6info_t (args[4], args[5]) are
// absent, and so are ifinfo_t's if_ipstack and if_addr.
package ip

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/inet"
)

// Provider implements provider.Provider.
type Provider struct{ provider.OneProbePerHook }

// Name implements provider.Provider.
func (Provider) Name() string { return "ip" }

var args = []provider.Arg{
	inet.Arg("struct sk_buff *", inet.PktinfoT), inet.Arg("struct sk_buff *", inet.CsinfoT),
	inet.Arg("struct sk_buff *", inet.IpinfoT), inet.Arg("struct sk_buff *", inet.IfinfoT),
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
	return inet.WirePrologue(probes, 0, n, skip), nil
}

// Attributes implements provider.Attributed: illumos's for ip.
func (Provider) Attributes() provider.Pattr { return provider.StableSDTAttr }
