// Package inet holds what the network providers (ip, tcp, udp) share:
// DTrace's translated structures (pktinfo_t, csinfo_t, ipinfo_t,
// tcpsinfo_t, tcplsinfo_t, tcpinfo_t, udpinfo_t) with the members Linux
// can fill, one layout of them in the probe context's translated area for
// every probe (so that a clause enabling several reads each right), and
// the prologue code that fills them from a socket or from a packet.
package inet

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Offsets in the translated area.
const (
	xLaddr    = 0  // tcps_laddr: 16 bytes and the family (u64)
	xRaddr    = 24 // tcps_raddr
	xSaddr    = 48 // ip_saddr
	xDaddr    = 72 // ip_daddr
	xSock     = 96 // the struct sock: tcps_addr, cs_addr, cs_cid
	xLport    = 104
	xRport    = 106
	xState    = 108
	xLocal    = 112
	xPrev     = 116 // tcplsinfo_t.tcps_state
	xSnxt     = 120
	xSuna     = 124
	xRnxt     = 128
	xSwnd     = 132
	xRwnd     = 136
	xCwnd     = 140
	xThresh   = 144
	xMss      = 148
	xPkt      = 152 // pkt_addr: always 0, as in DTrace
	xIPVer    = 160
	xPlength  = 162
	xSport    = 164 // tcp_sport, udp_sport
	xDport    = 166
	xFlags    = 168
	xOffset   = 169
	xWindow   = 170
	xSeq      = 172
	xAck      = 176
	xChecksum = 180 // tcp_checksum, udp_checksum
	xUrgent   = 182
	xUDPLen   = 184
	xEnd      = 192
)

// Offsets a provider stores to itself: tcpsinfo_t's and tcplsinfo_t's
// states.
const (
	XState = xState
	XPrev  = xPrev
)

func addr(name string, off int) provider.Member {
	return provider.Member{Name: name, Type: "string", Kind: provider.MemberString, Off: off, Size: 46, Inet: true}
}

func u(name, typ string, off, size int) provider.Member {
	return provider.Member{Name: name, Type: typ, Off: off, Size: size}
}

// The translated structures, as DTrace's ip.d, tcp.d and udp.d declare
// them, with the members Linux can fill.
var (
	PktinfoT = &provider.Struct{Name: "pktinfo_t", Members: []provider.Member{u("pkt_addr", "uintptr_t", xPkt, 8)}}
	CsinfoT  = &provider.Struct{Name: "csinfo_t", Members: []provider.Member{
		u("cs_addr", "uintptr_t", xSock, 8), u("cs_cid", "uint64_t", xSock, 8),
	}}
	IpinfoT = &provider.Struct{Name: "ipinfo_t", Members: []provider.Member{
		u("ip_ver", "uint8_t", xIPVer, 1), u("ip_plength", "uint16_t", xPlength, 2),
		addr("ip_saddr", xSaddr), addr("ip_daddr", xDaddr),
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
		u("tcp_seq", "uint32_t", xSeq, 4), u("tcp_ack", "uint32_t", xAck, 4),
		u("tcp_offset", "uint8_t", xOffset, 1), u("tcp_flags", "uint8_t", xFlags, 1),
		u("tcp_window", "uint16_t", xWindow, 2), u("tcp_checksum", "uint16_t", xChecksum, 2),
		u("tcp_urgent", "uint16_t", xUrgent, 2),
	}}
	// IpinfoSockT is the ipinfo_t of the connection probes: the
	// socket's addresses, no packet length.
	IpinfoSockT = &provider.Struct{Name: "ipinfo_t", Members: []provider.Member{
		u("ip_ver", "uint8_t", xIPVer, 1), addr("ip_saddr", xSaddr), addr("ip_daddr", xDaddr),
	}}
	// TcpinfoSockT is the tcpinfo_t of the connection probes, which
	// have the socket and not the packet: its ports and flags only.
	TcpinfoSockT = &provider.Struct{Name: "tcpinfo_t", Members: []provider.Member{
		u("tcp_sport", "uint16_t", xSport, 2), u("tcp_dport", "uint16_t", xDport, 2),
		u("tcp_flags", "uint8_t", xFlags, 1),
	}}
	// TcpsinfoPktT is the tcpsinfo_t of a segment received: the kernel
	// has not looked its socket up yet, so only the packet's side of it.
	TcpsinfoPktT = &provider.Struct{Name: "tcpsinfo_t", Members: []provider.Member{
		{Name: "tcps_local", Type: "int", Off: xLocal, Size: 4, Signed: true},
		u("tcps_lport", "uint16_t", xLport, 2), u("tcps_rport", "uint16_t", xRport, 2),
		addr("tcps_laddr", xLaddr), addr("tcps_raddr", xRaddr),
	}}
	UdpinfoT = &provider.Struct{Name: "udpinfo_t", Members: []provider.Member{
		u("udp_sport", "uint16_t", xSport, 2), u("udp_dport", "uint16_t", xDport, 2),
		u("udp_length", "uint16_t", xUDPLen, 2), u("udp_checksum", "uint16_t", xChecksum, 2),
	}}
)

// Arg is an argument translated to a pointer to s, from native.
func Arg(native string, s *provider.Struct) provider.Arg {
	return provider.Arg{Type: native, XType: s.Name + " *", Struct: s}
}

// Clear zeroes the translated area the structures use.
func Clear() asm.Instructions { return provider.Clear(0, xEnd) }

const (
	rS = provider.RegScratch
	x  = int16(provider.CtxXlate)
	t  = int16(provider.CtxTemp)
)

// be emits the conversion of the size-byte big-endian value at scratch
// offset off to host order, in place.
func be(off int16, size asm.Size) asm.Instructions {
	return asm.Instructions{
		asm.LoadMem(asm.R0, rS, off, size),
		asm.HostTo(asm.BE, asm.R0, size),
		asm.StoreMem(rS, off, asm.R0, size),
	}
}

// Socket fills tcpsinfo_t (but tcps_state) from the struct sock in R8,
// whose family (AF_INET or AF_INET6) is at CtxTemp+8: its address, ports,
// addresses, tcps_local and, when full is set, the tcp_sock's sequence
// and window variables. ip_ver is set from the family.
func Socket(full bool) asm.Instructions {
	insns := asm.Instructions{asm.StoreMem(rS, x+xSock, asm.R8, asm.DWord)}
	// the ports as inet_sock_set_state reads them (inet_sport: skc_num
	// is cleared when a closing socket gives its port back)
	insns = append(insns, provider.ReadField(asm.R8, "inet_sock", "inet_sport", x+xLport, 2)...)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_dport", x+xRport, 2)...)
	insns = append(insns, be(x+xLport, asm.Half)...)
	insns = append(insns, be(x+xRport, asm.Half)...)
	insns = append(insns,
		asm.LoadMem(asm.R0, rS, t+8, asm.Half),
		asm.StoreMem(rS, x+xLaddr+16, asm.R0, asm.DWord),
		asm.StoreMem(rS, x+xRaddr+16, asm.R0, asm.DWord),
		asm.StoreImm(rS, x+xIPVer, 4, asm.Byte),
		asm.JEq.Imm(asm.R0, 10, "inet_sk_v6"),
	)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_rcv_saddr", x+xLaddr, 4)...)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_daddr", x+xRaddr, 4)...)
	insns = append(insns, asm.Ja.Label("inet_sk_addr"), asm.StoreImm(rS, x+xIPVer, 6, asm.Byte).WithSymbol("inet_sk_v6"))
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_v6_rcv_saddr", x+xLaddr, 16)...)
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_v6_daddr", x+xRaddr, 16)...)
	insns = append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("inet_sk_addr"))
	insns = append(insns, local("inet_sk")...)
	if full {
		insns = append(insns, tcpSock()...)
	}
	return insns
}

// tcpSock reads the tcp_sock's variables of the socket in R8.
func tcpSock() asm.Instructions {
	var insns asm.Instructions
	for _, f := range []struct {
		field string
		off   int16
	}{
		{"snd_nxt", xSnxt}, {"snd_una", xSuna}, {"rcv_nxt", xRnxt}, {"snd_wnd", xSwnd},
		{"rcv_wnd", xRwnd}, {"snd_cwnd", xCwnd}, {"snd_ssthresh", xThresh}, {"mss_cache", xMss},
	} {
		insns = append(insns, provider.ReadField(asm.R8, "tcp_sock", f.field, x+f.off, 4)...)
	}
	return insns
}

// local sets tcps_local when the remote address is the local one, in
// 127/8, ::1 or ::ffff:127.0.0.0/104 (labels start with prefix).
func local(prefix string) asm.Instructions {
	v6, lo, yes, done := prefix+"_lv6", prefix+"_lo6", prefix+"_local", prefix+"_ldone"
	return asm.Instructions{
		asm.LoadMem(asm.R0, rS, x+xRaddr+16, asm.DWord),
		asm.JEq.Imm(asm.R0, 10, v6),
		asm.LoadMem(asm.R0, rS, x+xRaddr, asm.Word),
		asm.LoadMem(asm.R1, rS, x+xLaddr, asm.Word),
		asm.JEq.Reg(asm.R0, asm.R1, yes),
		asm.And.Imm(asm.R0, 0xff),
		asm.JEq.Imm(asm.R0, 127, yes),
		asm.Ja.Label(done),
		asm.LoadMem(asm.R0, rS, x+xRaddr, asm.DWord).WithSymbol(v6),
		asm.LoadMem(asm.R1, rS, x+xRaddr+8, asm.DWord),
		asm.LoadMem(asm.R2, rS, x+xLaddr, asm.DWord),
		asm.LoadMem(asm.R3, rS, x+xLaddr+8, asm.DWord),
		asm.JNE.Reg(asm.R0, asm.R2, lo),
		asm.JEq.Reg(asm.R1, asm.R3, yes),
		asm.JNE.Imm(asm.R0, 0, done).WithSymbol(lo),
		asm.LoadImm(asm.R2, 0x0100000000000000, asm.DWord),
		asm.JEq.Reg(asm.R1, asm.R2, yes),
		asm.LoadMem(asm.R1, rS, x+xRaddr+8, asm.Word),
		asm.LoadImm(asm.R2, 0xffff0000, asm.DWord),
		asm.JNE.Reg(asm.R1, asm.R2, done),
		asm.LoadMem(asm.R1, rS, x+xRaddr+12, asm.Byte),
		asm.JNE.Imm(asm.R1, 127, done),
		asm.StoreImm(rS, x+xLocal, 1, asm.Word).WithSymbol(yes),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(done),
	}
}

// Packet fills ipinfo_t, pktinfo_t and (whichever the protocol) tcpinfo_t
// or udpinfo_t from the local and remote addresses and ports the socket
// gave: the packet a socket step stands for, inbound or not, with the
// TCP flags given.
func Packet(inbound bool, flags int32) asm.Instructions {
	src, dst := int16(xLaddr), int16(xRaddr)
	sport, dport := int16(xLport), int16(xRport)
	if inbound {
		src, dst, sport, dport = dst, src, dport, sport
	}
	insns := copy24(x+src, x+xSaddr)
	insns = append(insns, copy24(x+dst, x+xDaddr)...)
	return append(insns,
		asm.LoadMem(asm.R0, rS, x+sport, asm.Half), asm.StoreMem(rS, x+xSport, asm.R0, asm.Half),
		asm.LoadMem(asm.R0, rS, x+dport, asm.Half), asm.StoreMem(rS, x+xDport, asm.R0, asm.Half),
		asm.StoreImm(rS, x+xFlags, int64(flags), asm.Byte),
	)
}

// copy24 copies an address and its family within the scratch area.
func copy24(from, to int16) asm.Instructions {
	var insns asm.Instructions
	for i := int16(0); i < 24; i += 8 {
		insns = append(insns, asm.LoadMem(asm.R0, rS, from+i, asm.DWord), asm.StoreMem(rS, to+i, asm.R0, asm.DWord))
	}
	return insns
}

// More of the translated area: ifinfo_t.
const (
	xIfName  = 192 // 16 bytes
	xIfLocal = 208
	xEndPkt  = 216
)

// IfinfoT is ifinfo_t: the network interface.
var IfinfoT = &provider.Struct{Name: "ifinfo_t", Members: []provider.Member{
	{Name: "if_name", Type: "string", Kind: provider.MemberString, Off: xIfName, Size: 16},
	{Name: "if_local", Type: "int8_t", Off: xIfLocal, Size: 1, Signed: true},
}}

// UdpsinfoT is udpsinfo_t: the socket's side of a UDP packet, from the
// packet's ports and addresses (the socket itself, udps_addr, is not known
// where the probes fire).
var UdpsinfoT = &provider.Struct{Name: "udpsinfo_t", Members: []provider.Member{
	u("udps_lport", "uint16_t", xLport, 2), u("udps_rport", "uint16_t", xRport, 2),
	addr("udps_laddr", xLaddr), addr("udps_raddr", xRaddr),
}}

// Protocols.
const (
	ProtoTCP = 6
	ProtoUDP = 17
)

// Wire emits the prologue part of a packet probe: the sk_buff is the BTF
// tracepoint's argument 0 (net_dev_start_xmit, netif_receive_skb), its
// network header at skb->head + skb->network_header when send is set and
// at skb->data when not (the device has pulled the link header). It jumps
// to skip unless the packet is IPv4 or IPv6 and carries proto (0: any);
// then, when fill is set, it fills ipinfo_t, ifinfo_t (from the device,
// argument dev of the tracepoint, or skb->dev when dev is -1), the
// tcpinfo_t or udpinfo_t of the transport header, and the socket side's
// ports and addresses of tcpsinfo_t and udpsinfo_t (the source's for a
// packet sent); for a TCP packet sent by a full socket (skb->sk), its
// state and variables too.
func Wire(send bool, dev int, proto int32, fill bool, skip string) asm.Instructions {
	insns := asm.Instructions{asm.LoadMem(asm.R8, provider.RegCtx, 0, asm.DWord)}
	insns = append(insns, provider.ReadField(asm.R8, "sk_buff", "protocol", t, 2)...)
	insns = append(insns, be(t, asm.Half)...)
	insns = append(insns,
		asm.LoadMem(asm.R0, rS, t, asm.Half),
		asm.JEq.Imm(asm.R0, 0x0800, "wire_ip"),
		asm.JNE.Imm(asm.R0, 0x86dd, skip),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("wire_ip"),
	)
	if send {
		insns = append(insns, provider.StoreImm64(rS, t+16, 0))
		insns = append(insns, provider.ReadField(asm.R8, "sk_buff", "head", t+8, 8)...)
		insns = append(insns, provider.ReadField(asm.R8, "sk_buff", "network_header", t+16, 2)...)
		insns = append(insns,
			asm.LoadMem(asm.R9, rS, t+8, asm.DWord),
			asm.LoadMem(asm.R0, rS, t+16, asm.DWord),
			asm.Add.Reg(asm.R9, asm.R0),
		)
	} else {
		insns = append(insns, provider.ReadField(asm.R8, "sk_buff", "data", t+8, 8)...)
		insns = append(insns, asm.LoadMem(asm.R9, rS, t+8, asm.DWord))
	}
	// the IP header's first 40 bytes (an IPv6 header; an IPv4 one and
	// what follows it, within the buffer's tail room)
	insns = append(insns,
		asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(t)),
		asm.Mov.Imm(asm.R2, 40),
		asm.Mov.Reg(asm.R3, asm.R9),
		asm.FnProbeReadKernel.Call(),
		asm.JNE.Imm(asm.R0, 0, skip),
		asm.LoadMem(asm.R0, rS, t, asm.Byte),
		asm.RSh.Imm(asm.R0, 4),
		asm.JEq.Imm(asm.R0, 6, "wire_v6"),
		asm.JNE.Imm(asm.R0, 4, skip),
		// IPv4: the header's length, the protocol
		asm.LoadMem(asm.R0, rS, t, asm.Byte),
		asm.And.Imm(asm.R0, 15),
		asm.LSh.Imm(asm.R0, 2),
		asm.StoreMem(rS, t+48, asm.R0, asm.DWord),
		asm.LoadMem(asm.R0, rS, t+9, asm.Byte),
		asm.StoreMem(rS, t+56, asm.R0, asm.DWord),
		asm.Ja.Label("wire_proto"),
		provider.StoreImm64(rS, t+48, 40).WithSymbol("wire_v6"),
		asm.LoadMem(asm.R0, rS, t+6, asm.Byte),
		asm.StoreMem(rS, t+56, asm.R0, asm.DWord),
		asm.LoadMem(asm.R0, rS, t+56, asm.DWord).WithSymbol("wire_proto"),
	)
	if proto != 0 {
		insns = append(insns, asm.JNE.Imm(asm.R0, proto, skip))
	}
	if !fill {
		return insns
	}
	insns = append(insns, provider.Clear(0, xEndPkt)...)
	insns = append(insns,
		asm.LoadMem(asm.R0, rS, t, asm.Byte),
		asm.RSh.Imm(asm.R0, 4),
		asm.StoreMem(rS, x+xIPVer, asm.R0, asm.Byte),
		asm.JEq.Imm(asm.R0, 6, "wire_fill6"),
		// IPv4: the payload is the total length less the header
		asm.LoadMem(asm.R0, rS, t+2, asm.Half),
		asm.HostTo(asm.BE, asm.R0, asm.Half),
		asm.LoadMem(asm.R1, rS, t+48, asm.DWord),
		asm.Sub.Reg(asm.R0, asm.R1),
		asm.StoreMem(rS, x+xPlength, asm.R0, asm.Half),
		asm.LoadMem(asm.R0, rS, t+12, asm.Word),
		asm.StoreMem(rS, x+xSaddr, asm.R0, asm.Word),
		asm.LoadMem(asm.R0, rS, t+16, asm.Word),
		asm.StoreMem(rS, x+xDaddr, asm.R0, asm.Word),
		provider.StoreImm64(rS, x+xSaddr+16, 2),
		provider.StoreImm64(rS, x+xDaddr+16, 2),
		asm.Ja.Label("wire_filled"),
		asm.LoadMem(asm.R0, rS, t+4, asm.Half).WithSymbol("wire_fill6"),
		asm.HostTo(asm.BE, asm.R0, asm.Half),
		asm.StoreMem(rS, x+xPlength, asm.R0, asm.Half),
	)
	for i := int16(0); i < 16; i += 8 {
		insns = append(insns,
			asm.LoadMem(asm.R0, rS, t+8+i, asm.DWord), asm.StoreMem(rS, x+xSaddr+i, asm.R0, asm.DWord),
			asm.LoadMem(asm.R0, rS, t+24+i, asm.DWord), asm.StoreMem(rS, x+xDaddr+i, asm.R0, asm.DWord),
		)
	}
	insns = append(insns,
		provider.StoreImm64(rS, x+xSaddr+16, 10),
		provider.StoreImm64(rS, x+xDaddr+16, 10),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("wire_filled"),
	)
	insns = append(insns, iface(dev)...)
	// the transport header, over the IP header's copy
	insns = append(insns,
		asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(t)),
		asm.Mov.Imm(asm.R2, 20),
		asm.Mov.Reg(asm.R3, asm.R9),
		asm.LoadMem(asm.R0, rS, t+48, asm.DWord),
		asm.Add.Reg(asm.R3, asm.R0),
		asm.FnProbeReadKernel.Call(),
		asm.JNE.Imm(asm.R0, 0, "wire_done"),
		asm.LoadMem(asm.R0, rS, t+56, asm.DWord),
		asm.JEq.Imm(asm.R0, ProtoTCP, "wire_tcp"),
		asm.JNE.Imm(asm.R0, ProtoUDP, "wire_done"),
	)
	// UDP: ports, length, checksum
	for _, f := range []struct{ from, to int16 }{{0, xSport}, {2, xDport}, {4, xUDPLen}, {6, xChecksum}} {
		insns = append(insns, asm.LoadMem(asm.R0, rS, t+f.from, asm.Half), asm.HostTo(asm.BE, asm.R0, asm.Half), asm.StoreMem(rS, x+f.to, asm.R0, asm.Half))
	}
	insns = append(insns, asm.Ja.Label("wire_sock"), asm.Mov.Imm(asm.R0, 0).WithSymbol("wire_tcp"))
	for _, f := range []struct {
		from, to int16
		size     asm.Size
	}{{0, xSport, asm.Half}, {2, xDport, asm.Half}, {4, xSeq, asm.Word}, {8, xAck, asm.Word},
		{14, xWindow, asm.Half}, {16, xChecksum, asm.Half}, {18, xUrgent, asm.Half}} {
		insns = append(insns, asm.LoadMem(asm.R0, rS, t+f.from, f.size), asm.HostTo(asm.BE, asm.R0, f.size), asm.StoreMem(rS, x+f.to, asm.R0, f.size))
	}
	insns = append(insns,
		asm.LoadMem(asm.R0, rS, t+12, asm.Byte),
		asm.RSh.Imm(asm.R0, 4),
		asm.LSh.Imm(asm.R0, 2),
		asm.StoreMem(rS, x+xOffset, asm.R0, asm.Byte),
		asm.LoadMem(asm.R0, rS, t+13, asm.Byte),
		asm.StoreMem(rS, x+xFlags, asm.R0, asm.Byte),
	)
	// the socket's side: the source of a packet sent, the destination
	// of one received
	src, sport := int16(xSaddr), int16(xSport)
	dst, dport := int16(xDaddr), int16(xDport)
	if !send {
		src, dst, sport, dport = dst, src, dport, sport
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("wire_sock"))
	insns = append(insns, copy24(x+src, x+xLaddr)...)
	insns = append(insns, copy24(x+dst, x+xRaddr)...)
	insns = append(insns,
		asm.LoadMem(asm.R0, rS, x+sport, asm.Half), asm.StoreMem(rS, x+xLport, asm.R0, asm.Half),
		asm.LoadMem(asm.R0, rS, x+dport, asm.Half), asm.StoreMem(rS, x+xRport, asm.R0, asm.Half),
	)
	insns = append(insns, local("wire")...)
	if send {
		insns = append(insns, sentBy()...)
	}
	return append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("wire_done"))
}

// iface fills ifinfo_t from the device: argument dev of the tracepoint,
// or skb->dev (the sk_buff in R8) for -1.
func iface(dev int) asm.Instructions {
	var insns asm.Instructions
	if dev >= 0 {
		insns = append(insns, asm.LoadMem(asm.R1, provider.RegCtx, int16(8*dev), asm.DWord))
	} else {
		insns = append(insns, provider.ReadField(asm.R8, "sk_buff", "dev", t+16, 8)...)
		insns = append(insns, asm.LoadMem(asm.R1, rS, t+16, asm.DWord))
	}
	insns = append(insns, asm.StoreMem(rS, t+16, asm.R1, asm.DWord), asm.JEq.Imm(asm.R1, 0, "wire_noif"))
	insns = append(insns, asm.LoadMem(asm.R4, rS, t+16, asm.DWord))
	insns = append(insns, provider.ReadField(asm.R4, "net_device", "name", x+xIfName, 15)...)
	insns = append(insns, asm.LoadMem(asm.R4, rS, t+16, asm.DWord))
	insns = append(insns, provider.ReadField(asm.R4, "net_device", "flags", t+24, 4)...)
	return append(insns,
		asm.LoadMem(asm.R0, rS, t+24, asm.Word),
		asm.RSh.Imm(asm.R0, 3), // IFF_LOOPBACK
		asm.And.Imm(asm.R0, 1),
		asm.StoreMem(rS, x+xIfLocal, asm.R0, asm.Byte),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("wire_noif"),
	)
}

// sentBy fills csinfo_t and the rest of tcpsinfo_t from the socket that
// sent a TCP packet (skb->sk of the sk_buff in R8) when it is a full TCP
// socket: not a request socket (a SYN-ACK's) nor a time-wait one.
func sentBy() asm.Instructions {
	insns := asm.Instructions{
		asm.LoadMem(asm.R0, rS, t+56, asm.DWord),
		asm.JNE.Imm(asm.R0, ProtoTCP, "wire_nosk"),
	}
	insns = append(insns, provider.ReadField(asm.R8, "sk_buff", "sk", t+16, 8)...)
	insns = append(insns, asm.LoadMem(asm.R8, rS, t+16, asm.DWord), asm.JEq.Imm(asm.R8, 0, "wire_nosk"))
	insns = append(insns, provider.StoreImm64(rS, t+24, 0))
	insns = append(insns, provider.ReadField(asm.R8, "sock", "__sk_common.skc_state", t+24, 1)...)
	insns = append(insns,
		asm.LoadMem(asm.R0, rS, t+24, asm.DWord),
		asm.JEq.Imm(asm.R0, 12, "wire_nosk"), // TCP_NEW_SYN_RECV
		asm.JEq.Imm(asm.R0, 6, "wire_nosk"),  // TCP_TIME_WAIT
		asm.StoreMem(rS, x+xState, asm.R0, asm.Word),
		asm.StoreMem(rS, x+xSock, asm.R8, asm.DWord),
	)
	insns = append(insns, tcpSock()...)
	return append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("wire_nosk"))
}

// WireProbes are a provider's send and receive probes on the devices'
// tracepoints (net_dev_start_xmit, netif_receive_skb), with args.
func WireProbes(args []provider.Arg) []provider.HookProbe {
	return []provider.HookProbe{
		{Name: "send", Tracepoint: "net_dev_start_xmit", Args: args},
		{Name: "receive", Tracepoint: "netif_receive_skb", Args: args},
	}
}

// WirePrologue is the prologue of a WireProbes probe: the packet a device
// is given (send) or hands up (receive), of protocol proto (0: any).
func WirePrologue(probes []*provider.Probe, proto int32, n provider.Needs, skip string) asm.Instructions {
	pr := probes[0]
	insns := provider.PrologueStart(pr.ID)
	if pr.Name == "send" {
		return append(insns, Wire(true, 1, proto, n.AnyArg(), skip)...)
	}
	return append(insns, Wire(false, -1, proto, n.AnyArg(), skip)...)
}
