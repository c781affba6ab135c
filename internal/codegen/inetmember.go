package codegen

// inetmember.go writes the address members of the network providers'
// translated structures (ipinfo_t.ip_saddr, tcpsinfo_t.tcps_raddr) as
// text where clause code uses them, as inet_ntop() writes an address: the
// prologue left the address and its family in the probe context.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// inetMemberInto writes the address member m into scratch[off:off+n].
func (g *gen) inetMemberInto(m *provider.Member, off, n int) {
	g.needXlate()
	raw, w := g.temp(16), g.temp(inetBuf)
	cur := int16(g.temp(8))
	at := int16(provider.CtxXlate + m.Off)
	g.zero(off, n)
	g.zero(w, inetBuf)
	for i := int16(0); i < 16; i += 8 {
		g.emit(asm.LoadMem(asm.R0, rS, at+i, asm.DWord), asm.StoreMem(rS, int16(raw)+i, asm.R0, asm.DWord))
	}
	// the address is in place: reading it is setting the cursor
	read := func(int32) { g.emit(asm.Mov.Imm(asm.R3, inetLast)) }
	out, is6, unknown := g.label("inm_out"), g.label("inm_6"), g.label("inm_unknown")
	g.emit(
		asm.LoadMem(asm.R0, rS, at+16, asm.DWord),
		asm.JEq.Imm(asm.R0, afInet6, is6),
		asm.JNE.Imm(asm.R0, afInet, unknown),
	)
	read(4)
	g.dottedAt(raw, w)
	g.emit(asm.StoreMem(rS, cur, asm.R3, asm.DWord), asm.Ja.Label(out))
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(is6))
	g.inet6(raw, w, cur, false, read, out)
	g.emit(asm.Ja.Label(out)) // inet6 ends where out would follow
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(unknown))
	g.storeLit(off, n, "<unknown>")
	done := g.label("inm_done")
	g.emit(asm.Ja.Label(done))
	// the text is w[cur+1:], up to the NUL at inetLast+1
	g.emit(asm.LoadMem(asm.R3, rS, cur, asm.DWord).WithSymbol(out))
	g.clamp(asm.R3, -1, inetLast)
	g.emit(asm.Add.Imm(asm.R3, int32(w+1)), asm.Mov.Reg(asm.R4, rS), asm.Add.Reg(asm.R4, asm.R3), asm.Mov.Reg(asm.R3, asm.R4))
	g.emit(asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(min(n, inetBuf))), asm.FnProbeReadKernelStr.Call())
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(done))
}
