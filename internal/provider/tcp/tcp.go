// Package tcp is the tcp provider: TCP connections and segments, on the
// kernel's stable tracepoints (BTF-typed raw tracepoints).
//
//	state-change         inet_sock_set_state of a TCP socket; args[3]
//	                     tcpsinfo_t (the new state), args[5] tcplsinfo_t
//	                     (the previous one); args[0], [2], [4] NULL
//	connect-established  SYN_SENT -> ESTABLISHED: the SYN-ACK arrived
//	connect-refused      tcp_receive_reset in SYN_SENT: the RST arrived
//	accept-established   SYN_RECV -> ESTABLISHED: the handshake's last
//	                     ACK arrived, on the new socket
//	send                 net_dev_start_xmit of a TCP segment
//	receive              netif_receive_skb of a TCP segment
//
// Their arguments are DTrace's: args[0] pktinfo_t (pkt_addr NULL, as in
// DTrace), args[1] csinfo_t, args[2] ipinfo_t, args[3] tcpsinfo_t, args[4]
// tcpinfo_t (package inet). The connection probes fill them from the
// socket: the packet that completes a handshake step is not at hand, so
// their tcpinfo_t has only its ports and the flags the step implies
// (SYN|ACK; RST; ACK), their ipinfo_t no ip_plength. send and receive fill them from the segment's
// headers; their tcpsinfo_t has the ports and addresses of the socket's
// side of the segment; send's has the state and variables of the full
// socket that sent it (0 for a SYN-ACK, sent for a request, and for a
// time-wait socket's segments); receive's has no more (the kernel has not
// looked the socket up yet) and its csinfo_t's cs_addr is 0. A
// segmentation-offloaded send is one large segment, as the device gets
// it. TCP states are Linux's numbers (TCP_STATE_ESTABLISHED 1 ...
// TCP_STATE_CLOSING 11), as on DTrace for Linux. Members Linux cannot give
// here (csinfo_t's cs_pid, which the softirq that runs most of these does
// not know; tcps_active; tcps_iss; tcp_hdr) are absent; so are
// accept-refused, and connect-request: at the change to SYN_SENT the local
// port is not chosen yet.
package tcp

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/inet"
)

// Provider implements provider.Provider.
type Provider struct{ provider.OneProbePerHook }

// Name implements provider.Provider.
func (Provider) Name() string { return "tcp" }

var (
	null      = provider.Arg{Type: "void *"}
	sockArgs  = []provider.Arg{inet.Arg("struct sock *", inet.PktinfoT), inet.Arg("struct sock *", inet.CsinfoT), inet.Arg("struct sock *", inet.IpinfoSockT), inet.Arg("struct sock *", inet.TcpsinfoT), inet.Arg("struct sock *", inet.TcpinfoSockT)}
	sendArgs  = []provider.Arg{inet.Arg("struct sk_buff *", inet.PktinfoT), inet.Arg("struct sk_buff *", inet.CsinfoT), inet.Arg("struct sk_buff *", inet.IpinfoT), inet.Arg("struct sk_buff *", inet.TcpsinfoT), inet.Arg("struct sk_buff *", inet.TcpinfoT)}
	recvArgs  = []provider.Arg{inet.Arg("struct sk_buff *", inet.PktinfoT), inet.Arg("struct sk_buff *", inet.CsinfoT), inet.Arg("struct sk_buff *", inet.IpinfoT), inet.Arg("struct sk_buff *", inet.TcpsinfoPktT), inet.Arg("struct sk_buff *", inet.TcpinfoT)}
	stateArgs = []provider.Arg{null, inet.Arg("struct sock *", inet.CsinfoT), null, inet.Arg("struct sock *", inet.TcpsinfoT), null, inet.Arg("int", inet.TcplsinfoT)}
)

var defs = []provider.HookProbe{
	{Name: "state-change", Tracepoint: "inet_sock_set_state", Args: stateArgs},
	{Name: "connect-established", Tracepoint: "inet_sock_set_state", Args: sockArgs},
	{Name: "connect-refused", Tracepoint: "tcp_receive_reset", Args: sockArgs},
	{Name: "accept-established", Tracepoint: "inet_sock_set_state", Args: sockArgs},
	{Name: "send", Tracepoint: "net_dev_start_xmit", Args: sendArgs},
	{Name: "receive", Tracepoint: "netif_receive_skb", Args: recvArgs},
}

// Linux's TCP states and the TCP header's flags.
const (
	stateEstablished = 1
	stateSynSent     = 2
	stateSynRecv     = 3

	thRST = 0x04
	thSYN = 0x02
	thACK = 0x10
)

// step is what a connection probe fires for: the change of state (old,
// new) of inet_sock_set_state, or for tcp_receive_reset the state the
// socket is in (old); the packet it stands for is inbound, with flags.
type step struct {
	old, new int32
	flags    int32
}

var steps = map[string]step{
	"connect-established": {stateSynSent, stateEstablished, thSYN | thACK},
	"connect-refused":     {stateSynSent, 0, thRST},
	"accept-established":  {stateSynRecv, stateEstablished, thACK},
}

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	return provider.HookProbes(p, defs, d), nil
}

// Prologue implements provider.Provider.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	pr := probes[0]
	insns := provider.PrologueStart(pr.ID)
	switch pr.Name {
	case "send":
		return append(insns, inet.Wire(true, 1, inet.ProtoTCP, n.AnyArg(), skip)...), nil
	case "receive":
		return append(insns, inet.Wire(false, -1, inet.ProtoTCP, n.AnyArg(), skip)...), nil
	}
	return append(insns, sockPrologue(h, pr, n, skip)...), nil
}

// sockPrologue serves the probes of a socket's state: it must be a TCP
// one of AF_INET or AF_INET6, in the step the probe names; the structures
// are filled from it.
func sockPrologue(h provider.Hook, pr *provider.Probe, n provider.Needs, skip string) asm.Instructions {
	r, ctx := provider.RegScratch, provider.RegCtx
	t := int16(provider.CtxTemp)
	x := int16(provider.CtxXlate)
	insns := asm.Instructions{asm.LoadMem(asm.R8, ctx, 0, asm.DWord)} // the socket
	insns = append(insns, provider.ReadField(asm.R8, "sock", "sk_protocol", t, 2)...)
	insns = append(insns, asm.LoadMem(asm.R0, r, t, asm.Half), asm.JNE.Imm(asm.R0, inet.ProtoTCP, skip))
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_family", t+8, 2)...)
	insns = append(insns,
		asm.LoadMem(asm.R0, r, t+8, asm.Half),
		asm.JEq.Imm(asm.R0, 2, "tcp_family"),
		asm.JNE.Imm(asm.R0, 10, skip),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("tcp_family"),
	)
	// the states: old and new at CtxTemp+16 and +24
	if h.Name == "inet_sock_set_state" {
		insns = append(insns, provider.HookArg32(1, t+16, true)...)
		insns = append(insns, provider.HookArg32(2, t+24, true)...)
	} else {
		insns = append(insns, provider.StoreImm64(r, t+16, 0), provider.StoreImm64(r, t+24, 0))
		insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_state", t+16, 1)...)
	}
	st, isStep := steps[pr.Name]
	if isStep {
		insns = append(insns, asm.LoadMem(asm.R0, r, t+16, asm.DWord), asm.JNE.Imm(asm.R0, st.old, skip))
		if st.new != 0 {
			insns = append(insns, asm.LoadMem(asm.R0, r, t+24, asm.DWord), asm.JNE.Imm(asm.R0, st.new, skip))
		}
	}
	if !n.AnyArg() {
		return insns
	}
	insns = append(insns, inet.Clear()...)
	insns = append(insns, inet.Socket(true)...)
	state, prev := t+24, t+16
	if pr.Name == "connect-refused" {
		state = t + 16 // still SYN_SENT
	}
	insns = append(insns,
		asm.LoadMem(asm.R0, r, state, asm.DWord),
		asm.StoreMem(r, x+inet.XState, asm.R0, asm.Word),
		asm.LoadMem(asm.R0, r, prev, asm.DWord),
		asm.StoreMem(r, x+inet.XPrev, asm.R0, asm.Word),
	)
	if isStep {
		insns = append(insns, inet.Packet(true, st.flags)...)
	}
	return insns
}

// Attributes implements provider.Attributed: illumos's for tcp.
func (Provider) Attributes() provider.Pattr { return provider.StableSDTAttr }
