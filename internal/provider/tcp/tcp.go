// Package tcp is the tcp provider: TCP connections, on the kernel's stable
// tracepoints (BTF-typed raw tracepoints on the socket).
//
//	state-change         inet_sock_set_state of a TCP socket; args[3]
//	                     tcpsinfo_t (the new state), args[5] tcplsinfo_t
//	                     (the previous one); args[0], [2], [4] NULL
//	connect-established  SYN_SENT -> ESTABLISHED: the SYN-ACK arrived
//	connect-refused      tcp_receive_reset in SYN_SENT: the RST arrived
//	accept-established   SYN_RECV -> ESTABLISHED: the handshake's last
//	                     ACK arrived, on the new socket
//
// The others' arguments are DTrace's: args[0] pktinfo_t (pkt_addr NULL, as
// in DTrace), args[1] csinfo_t, args[2] ipinfo_t, args[3] tcpsinfo_t,
// args[4] tcpinfo_t, all from the socket: the packet that fires a probe
// is not at hand, so tcpinfo_t has its ports and the flags the handshake
// step implies (SYN; SYN|ACK; RST; ACK) and no sequence numbers, and
// ipinfo_t its version and addresses. TCP states are Linux's numbers
// (TCP_STATE_ESTABLISHED 1 ... TCP_STATE_CLOSING 11), as on DTrace for
// Linux. Members Linux cannot give here (csinfo_t's cs_pid, which the
// softirq that runs most of these does not know; tcps_active; tcps_iss)
// are absent; so are send, receive, accept-refused.
package tcp

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Provider implements provider.Provider.
type Provider struct{ provider.OneProbePerHook }

// Name implements provider.Provider.
func (Provider) Name() string { return "tcp" }

// Offsets in the translated area.
const (
	xLaddr  = 0  // tcps_laddr: 16 bytes and the family (u64)
	xRaddr  = 24 // tcps_raddr
	xSaddr  = 48 // ip_saddr
	xDaddr  = 72 // ip_daddr
	xSock   = 96 // the struct sock: tcps_addr, cs_addr, cs_cid
	xLport  = 104
	xRport  = 106
	xState  = 108
	xLocal  = 112
	xPrev   = 116 // tcplsinfo_t.tcps_state
	xSnxt   = 120
	xSuna   = 124
	xRnxt   = 128
	xSwnd   = 132
	xRwnd   = 136
	xCwnd   = 140
	xThresh = 144
	xMss    = 148
	xIPVer  = 152
	xPkt    = 156 // pkt_addr: always 0
	xSport  = 164
	xDport  = 166
	xFlags  = 168
	xEnd    = 176
)

func addr(name string, off int) provider.Member {
	return provider.Member{Name: name, Type: "string", Kind: provider.MemberString, Off: off, Size: 46, Inet: true}
}

func u(name, typ string, off, size int) provider.Member {
	return provider.Member{Name: name, Type: typ, Off: off, Size: size}
}

// The translated structures, as DTrace's tcp.d and ip.d declare them,
// with the members Linux can fill here.
var (
	PktinfoT = &provider.Struct{Name: "pktinfo_t", Members: []provider.Member{u("pkt_addr", "uintptr_t", xPkt, 8)}}
	CsinfoT  = &provider.Struct{Name: "csinfo_t", Members: []provider.Member{
		u("cs_addr", "uintptr_t", xSock, 8), u("cs_cid", "uint64_t", xSock, 8),
	}}
	IpinfoT = &provider.Struct{Name: "ipinfo_t", Members: []provider.Member{
		u("ip_ver", "uint8_t", xIPVer, 1), addr("ip_saddr", xSaddr), addr("ip_daddr", xDaddr),
	}}
	TcpsinfoT = &provider.Struct{Name: "tcpsinfo_t", Members: []provider.Member{
		u("tcps_addr", "uintptr_t", xSock, 8),
		{Name: "tcps_local", Type: "int", Off: xLocal, Size: 4, Signed: true},
		u("tcps_lport", "uint16_t", xLport, 2), u("tcps_rport", "uint16_t", xRport, 2),
		addr("tcps_laddr", xLaddr), addr("tcps_raddr", xRaddr),
		{Name: "tcps_state", Type: "int32_t", Off: xState, Size: 4, Signed: true},
		u("tcps_suna", "uint32_t", xSuna, 4), u("tcps_snxt", "uint32_t", xSnxt, 4),
		u("tcps_rnxt", "uint32_t", xRnxt, 4), u("tcps_swnd", "uint32_t", xSwnd, 4),
		u("tcps_rwnd", "uint32_t", xRwnd, 4), u("tcps_cwnd", "uint32_t", xCwnd, 4),
		u("tcps_cwnd_ssthresh", "uint32_t", xThresh, 4), u("tcps_mss", "uint32_t", xMss, 4),
	}}
	TcplsinfoT = &provider.Struct{Name: "tcplsinfo_t", Members: []provider.Member{
		{Name: "tcps_state", Type: "int32_t", Off: xPrev, Size: 4, Signed: true},
	}}
	TcpinfoT = &provider.Struct{Name: "tcpinfo_t", Members: []provider.Member{
		u("tcp_sport", "uint16_t", xSport, 2), u("tcp_dport", "uint16_t", xDport, 2),
		u("tcp_flags", "uint8_t", xFlags, 1),
	}}
)

func arg(native, xtype string, s *provider.Struct) provider.Arg {
	return provider.Arg{Type: native, XType: xtype + " *", Struct: s}
}

var (
	null      = provider.Arg{Type: "void *"}
	sockArgs  = []provider.Arg{arg("struct sock *", "pktinfo_t", PktinfoT), arg("struct sock *", "csinfo_t", CsinfoT), arg("struct sock *", "ipinfo_t", IpinfoT), arg("struct sock *", "tcpsinfo_t", TcpsinfoT), arg("struct sock *", "tcpinfo_t", TcpinfoT)}
	stateArgs = []provider.Arg{null, arg("struct sock *", "csinfo_t", CsinfoT), null, arg("struct sock *", "tcpsinfo_t", TcpsinfoT), null, arg("int", "tcplsinfo_t", TcplsinfoT)}
)

var defs = []provider.HookProbe{
	{Name: "state-change", Tracepoint: "inet_sock_set_state", Args: stateArgs},
	{Name: "connect-established", Tracepoint: "inet_sock_set_state", Args: sockArgs},
	{Name: "connect-refused", Tracepoint: "tcp_receive_reset", Args: sockArgs},
	{Name: "accept-established", Tracepoint: "inet_sock_set_state", Args: sockArgs},
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

// step is what a probe other than state-change fires for: the change of
// state (old, new) of inet_sock_set_state, or for tcp_receive_reset the
// state the socket is in (old); the direction of the packet it stands for
// and its flags.
type step struct {
	old, new int32
	inbound  bool
	flags    int32
}

var steps = map[string]step{
	"connect-established": {stateSynSent, stateEstablished, true, thSYN | thACK},
	"connect-refused":     {stateSynSent, 0, true, thRST},
	"accept-established":  {stateSynRecv, stateEstablished, true, thACK},
}

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	return provider.HookProbes(p, defs, d), nil
}

// Prologue implements provider.Provider: the socket must be a TCP one of
// AF_INET or AF_INET6, in the step the probe names; the structures are
// filled from it.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	pr := probes[0]
	r, ctx := provider.RegScratch, provider.RegCtx
	t := int16(provider.CtxTemp)
	insns := provider.PrologueStart(pr.ID)
	insns = append(insns, asm.LoadMem(asm.R8, ctx, 0, asm.DWord)) // the socket
	insns = append(insns, provider.ReadField(asm.R8, "sock", "sk_protocol", t, 2)...)
	insns = append(insns, asm.LoadMem(asm.R0, r, t, asm.Half), asm.JNE.Imm(asm.R0, 6, skip))
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
		return insns, nil
	}
	x := int16(provider.CtxXlate)
	insns = append(insns, provider.Clear(0, xEnd)...)
	insns = append(insns,
		asm.StoreMem(r, x+xSock, asm.R8, asm.DWord),
		asm.LoadMem(asm.R0, r, t+24, asm.DWord),
		asm.StoreMem(r, x+xState, asm.R0, asm.Word),
		asm.LoadMem(asm.R0, r, t+16, asm.DWord),
		asm.StoreMem(r, x+xPrev, asm.R0, asm.Word),
	)
	if pr.Name == "connect-refused" {
		insns = append(insns, asm.StoreMem(r, x+xState, asm.R0, asm.Word)) // still SYN_SENT
	}
	// the ports as the tracepoint reads them (inet_sport: skc_num is
	// cleared when a closing socket gives its port back)
	insns = append(insns, provider.ReadField(asm.R8, "inet_sock", "inet_sport", x+xLport, 2)...)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_dport", x+xRport, 2)...)
	for _, off := range []int16{x + xLport, x + xRport} {
		insns = append(insns,
			asm.LoadMem(asm.R0, r, off, asm.Half),
			asm.HostTo(asm.BE, asm.R0, asm.Half),
			asm.StoreMem(r, off, asm.R0, asm.Half),
		)
	}
	insns = append(insns, addresses()...)
	for _, f := range []struct {
		field string
		off   int16
	}{
		{"snd_nxt", xSnxt}, {"snd_una", xSuna}, {"rcv_nxt", xRnxt}, {"snd_wnd", xSwnd},
		{"rcv_wnd", xRwnd}, {"snd_cwnd", xCwnd}, {"snd_ssthresh", xThresh}, {"mss_cache", xMss},
	} {
		insns = append(insns, provider.ReadField(asm.R8, "tcp_sock", f.field, x+f.off, 4)...)
	}
	if isStep {
		src, dst := int16(xLaddr), int16(xRaddr)
		sport, dport := int16(xLport), int16(xRport)
		if st.inbound {
			src, dst, sport, dport = dst, src, dport, sport
		}
		insns = append(insns, copy24(x+src, x+xSaddr)...)
		insns = append(insns, copy24(x+dst, x+xDaddr)...)
		insns = append(insns,
			asm.LoadMem(asm.R0, r, x+sport, asm.Half), asm.StoreMem(r, x+xSport, asm.R0, asm.Half),
			asm.LoadMem(asm.R0, r, x+dport, asm.Half), asm.StoreMem(r, x+xDport, asm.R0, asm.Half),
			asm.StoreImm(r, x+xFlags, int64(st.flags), asm.Byte),
		)
	}
	return insns, nil
}

// addresses fills tcps_laddr, tcps_raddr (and their families), ip_ver and
// tcps_local from the socket in R8, whose family is at CtxTemp+8.
func addresses() asm.Instructions {
	r := provider.RegScratch
	x, t := int16(provider.CtxXlate), int16(provider.CtxTemp)
	insns := asm.Instructions{
		asm.LoadMem(asm.R0, r, t+8, asm.Half),
		asm.StoreMem(r, x+xLaddr+16, asm.R0, asm.DWord),
		asm.StoreMem(r, x+xRaddr+16, asm.R0, asm.DWord),
		asm.StoreImm(r, x+xIPVer, 4, asm.Byte),
		asm.JEq.Imm(asm.R0, 10, "tcp_v6"),
	}
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_rcv_saddr", x+xLaddr, 4)...)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_daddr", x+xRaddr, 4)...)
	insns = append(insns,
		// local: the remote address is the local one or in 127/8
		asm.LoadMem(asm.R0, r, x+xRaddr, asm.Word),
		asm.LoadMem(asm.R1, r, x+xLaddr, asm.Word),
		asm.JEq.Reg(asm.R0, asm.R1, "tcp_local"),
		asm.And.Imm(asm.R0, 0xff),
		asm.JEq.Imm(asm.R0, 127, "tcp_local"),
		asm.Ja.Label("tcp_addr_done"),
		asm.StoreImm(r, x+xIPVer, 6, asm.Byte).WithSymbol("tcp_v6"),
	)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_v6_rcv_saddr", x+xLaddr, 16)...)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_v6_daddr", x+xRaddr, 16)...)
	insns = append(insns,
		// local: the remote address is the local one, ::1, or
		// ::ffff:127.x.x.x
		asm.LoadMem(asm.R0, r, x+xRaddr, asm.DWord),
		asm.LoadMem(asm.R1, r, x+xRaddr+8, asm.DWord),
		asm.LoadMem(asm.R2, r, x+xLaddr, asm.DWord),
		asm.LoadMem(asm.R3, r, x+xLaddr+8, asm.DWord),
		asm.JNE.Reg(asm.R0, asm.R2, "tcp_v6_lo"),
		asm.JEq.Reg(asm.R1, asm.R3, "tcp_local"),
		asm.JNE.Imm(asm.R0, 0, "tcp_addr_done").WithSymbol("tcp_v6_lo"),
		asm.LoadImm(asm.R2, 0x0100000000000000, asm.DWord),
		asm.JEq.Reg(asm.R1, asm.R2, "tcp_local"),
		asm.LoadMem(asm.R1, r, x+xRaddr+8, asm.Word),
		asm.LoadImm(asm.R2, 0xffff0000, asm.DWord),
		asm.JNE.Reg(asm.R1, asm.R2, "tcp_addr_done"),
		asm.LoadMem(asm.R1, r, x+xRaddr+12, asm.Byte),
		asm.JNE.Imm(asm.R1, 127, "tcp_addr_done"),
		asm.StoreImm(r, x+xLocal, 1, asm.Word).WithSymbol("tcp_local"),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("tcp_addr_done"),
	)
	return insns
}

// copy24 copies an address and its family within the scratch area.
func copy24(from, to int16) asm.Instructions {
	r := provider.RegScratch
	var insns asm.Instructions
	for i := int16(0); i < 24; i += 8 {
		insns = append(insns, asm.LoadMem(asm.R0, r, from+i, asm.DWord), asm.StoreMem(r, to+i, asm.R0, asm.DWord))
	}
	return insns
}
