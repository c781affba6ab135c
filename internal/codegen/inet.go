package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/plan"
)

// Address families as Linux numbers them (inet_ntop's first argument).
const (
	afInet  = 2
	afInet6 = 10
)

// inetBuf is the size of the area an address is written into, backwards
// from inetLast (INET6_ADDRSTRLEN, 46, with its NUL).
const (
	inetBuf  = 48
	inetLast = 44
)

// inet writes an address as DTrace's inet_ntoa(), inet_ntoa6() and
// inet_ntop() do (dtrace_dif_subr, DIF_SUBR_INET_NTOP) into
// scratch[off:off+n]: dotted decimal for AF_INET; for AF_INET6 16-bit
// groups in lower-case hexadecimal, the longest run of zero groups (as
// DTrace's scan finds it: a single group is a run) written "::", and the
// last four bytes dotted for IPv4-mapped and IPv4-compatible addresses
// (all inet_ntoa6() writes of them). The address is read from kernel
// memory, or from user memory when its pointer type says so; another
// family is an illegal operation.
func (g *gen) inet(name string, x *ast.CallExpr, off, n int) {
	addr := x.Args[0]
	if name == "inet_ntop" {
		addr = x.Args[1]
	}
	raw, w := g.temp(16), g.temp(inetBuf)
	cur := int16(g.temp(8))
	g.zero(off, n)
	g.zero(raw, 16)
	g.zero(w, inetBuf)
	af := int16(0)
	if name == "inet_ntop" {
		af = int16(g.temp(8))
		g.expr(x.Args[0])
		g.emit(asm.StoreMem(rS, af, asm.R0, asm.DWord))
	}
	g.expr(addr)
	src := int16(g.temp(8))
	g.emit(asm.StoreMem(rS, src, asm.R0, asm.DWord))
	user := g.typeOf(addr).User
	read := func(size int32) {
		ok := g.label("in_rd")
		fn := asm.FnProbeReadKernel
		if user {
			fn = asm.FnProbeReadUser
		}
		g.emit(
			asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(raw)),
			asm.Mov.Imm(asm.R2, size),
			asm.LoadMem(asm.R3, rS, src, asm.DWord),
			asm.Mov.Reg(regTmp, asm.R3),
			fn.Call(),
			asm.JEq.Imm(asm.R0, 0, ok),
		)
		g.fault(plan.FaultBadAddr, regTmp, x.Pos())
		g.emit(asm.Mov.Imm(asm.R3, inetLast).WithSymbol(ok))
	}
	out := g.label("in_out")
	v4 := func() {
		read(4)
		g.dottedAt(raw, w)
		g.emit(asm.StoreMem(rS, cur, asm.R3, asm.DWord), asm.Ja.Label(out))
	}
	switch name {
	case "inet_ntoa":
		v4()
	case "inet_ntoa6":
		g.inet6(raw, w, cur, true, read, out)
	default:
		is4, is6 := g.label("in_4"), g.label("in_6")
		g.emit(
			asm.LoadMem(regTmp, rS, af, asm.DWord),
			asm.JEq.Imm(regTmp, afInet, is4),
			asm.JEq.Imm(regTmp, afInet6, is6),
		)
		g.fault(plan.FaultIllOp, regTmp, x.Pos())
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(is4))
		v4()
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(is6))
		g.inet6(raw, w, cur, false, read, out)
	}
	// the text is w[cur+1:], up to the NUL at inetLast+1
	g.emit(asm.LoadMem(asm.R3, rS, cur, asm.DWord).WithSymbol(out))
	g.clamp(asm.R3, -1, inetLast)
	g.emit(asm.Add.Imm(asm.R3, int32(w+1)), asm.Mov.Reg(asm.R4, rS), asm.Add.Reg(asm.R4, asm.R3), asm.Mov.Reg(asm.R3, asm.R4))
	g.emit(asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(min(n, inetBuf))), asm.FnProbeReadKernelStr.Call())
}

// dottedAt writes the bytes scratch[raw:raw+4] in dotted decimal backwards
// into scratch[w:], the cursor in R3 (the next byte to write, going down).
// Every digit is stored, the cursor moving past the tens and hundreds only
// when there are some, so there is no branch.
func (g *gen) dottedAt(raw, w int) {
	put := func(r asm.Register) {
		g.emit(asm.Mov.Reg(asm.R5, rS), asm.Add.Imm(asm.R5, int32(w)), asm.Add.Reg(asm.R5, asm.R3),
			asm.StoreMem(asm.R5, 0, r, asm.Byte))
	}
	for i := 3; i >= 0; i-- {
		g.emit(asm.LoadMem(asm.R4, rS, int16(raw+i), asm.Byte))
		g.emit(asm.Mov.Reg(asm.R0, asm.R4), asm.Mod.Imm(asm.R0, 10), asm.Add.Imm(asm.R0, '0'))
		put(asm.R0)
		g.emit(asm.Sub.Imm(asm.R3, 1))
		g.emit(asm.Mov.Reg(asm.R0, asm.R4), asm.Div.Imm(asm.R0, 10), asm.Mod.Imm(asm.R0, 10), asm.Add.Imm(asm.R0, '0'))
		put(asm.R0)
		g.emit(asm.Mov.Imm(asm.R0, 9), asm.Sub.Reg(asm.R0, asm.R4), asm.RSh.Imm(asm.R0, 63), asm.Sub.Reg(asm.R3, asm.R0))
		g.emit(asm.Mov.Reg(asm.R0, asm.R4), asm.Div.Imm(asm.R0, 100), asm.Add.Imm(asm.R0, '0'))
		put(asm.R0)
		g.emit(asm.Mov.Imm(asm.R0, 99), asm.Sub.Reg(asm.R0, asm.R4), asm.RSh.Imm(asm.R0, 63), asm.Sub.Reg(asm.R3, asm.R0))
		if i > 0 {
			g.emit(asm.Mov.Imm(asm.R0, '.'))
			put(asm.R0)
			g.emit(asm.Sub.Imm(asm.R3, 1))
		}
	}
}

// inet6 reads and writes an IPv6 address (see inet); the final cursor is
// left in the cur slot. only4 is inet_ntoa6(), which writes just the IPv4
// part of mapped and compatible addresses.
func (g *gen) inet6(raw, w int, cur int16, only4 bool, read func(int32), out string) {
	read(16)
	slot := func() int16 { return int16(g.temp(8)) }
	fz, tz, nz, ii := slot(), slot(), slot(), slot()
	g.emit(scratch64(fz, -1), scratch64(tz, -1), scratch64(nz, 1), asm.Mov.Imm(asm.R1, 16))
	// The longest run of zero groups, scanning bytes as DTrace does.
	g.bpfLoop(func(brk string) {
		next, l1, l2 := g.label("z_next"), g.label("z_1"), g.label("z_2")
		g.emit(
			asm.JGT.Imm(regLoopIdx, 15, brk),
			asm.Mov.Reg(asm.R2, rS), asm.Add.Imm(asm.R2, int32(raw)), asm.Add.Reg(asm.R2, regLoopIdx),
			asm.LoadMem(asm.R2, asm.R2, 0, asm.Byte), // b
			asm.LoadMem(asm.R3, rS, tz, asm.DWord),
			// a zero at an even byte starts a run
			asm.JNE.Imm(asm.R2, 0, l1),
			asm.JNE.Imm(asm.R3, -1, l1),
			asm.Mov.Reg(asm.R4, regLoopIdx), asm.And.Imm(asm.R4, 1),
			asm.JNE.Imm(asm.R4, 0, l1),
			asm.StoreMem(rS, tz, regLoopIdx, asm.DWord),
			asm.Ja.Label(next),
			// a run ends at a non-zero byte or the last byte
			asm.JEq.Imm(asm.R3, -1, next).WithSymbol(l1),
			asm.JNE.Imm(asm.R2, 0, l2),
			asm.JNE.Imm(regLoopIdx, 15, next),
			asm.Mov.Reg(asm.R4, regLoopIdx).WithSymbol(l2),
			asm.Sub.Reg(asm.R4, asm.R3),
			asm.LoadMem(asm.R5, rS, nz, asm.DWord),
			scratch64(tz, -1),
			asm.JSLE.Reg(asm.R4, asm.R5, next),
			asm.StoreMem(rS, fz, asm.R3, asm.DWord),
			asm.Mov.Reg(asm.R4, regLoopIdx), asm.And.Imm(asm.R4, 1),
			asm.Mov.Reg(asm.R5, regLoopIdx), asm.Sub.Reg(asm.R5, asm.R4), asm.Sub.Reg(asm.R5, asm.R3),
			asm.JNE.Imm(asm.R2, 0, next+"_s"),
			asm.JNE.Imm(regLoopIdx, 15, next+"_s"),
			asm.Add.Imm(asm.R5, 2),
			asm.StoreMem(rS, nz, asm.R5, asm.DWord).WithSymbol(next+"_s"),
			asm.Mov.Imm(asm.R0, 0).WithSymbol(next),
		)
	})
	// IPv4-mapped (::ffff:a.b.c.d) or -compatible (::a.b.c.d, but for ::
	// and ::1): the last four bytes dotted.
	not4, is4 := g.label("in_n4"), g.label("in_4m")
	g.emit(
		scratch64(ii, 14),
		asm.Mov.Imm(asm.R3, inetLast),
		asm.LoadMem(asm.R0, rS, int16(raw), asm.DWord),
		asm.JNE.Imm(asm.R0, 0, not4),
		asm.LoadMem(asm.R0, rS, int16(raw+8), asm.Half),
		asm.JNE.Imm(asm.R0, 0, not4),
		asm.LoadMem(asm.R0, rS, int16(raw+10), asm.Half),
		asm.JEq.Imm(asm.R0, 0xffff, is4),
		asm.JNE.Imm(asm.R0, 0, not4),
		asm.LoadMem(asm.R0, rS, int16(raw+12), asm.Word),
		asm.JEq.Imm(asm.R0, 0, not4),
		asm.JEq.Imm(asm.R0, 0x01000000, not4),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(is4),
	)
	g.dottedAt(raw+12, w)
	g.emit(asm.StoreMem(rS, cur, asm.R3, asm.DWord))
	if only4 {
		g.emit(asm.Ja.Label(out))
	}
	g.emit(
		scratch64(ii, 10),
		asm.Ja.Label(not4+"_b"),
		asm.StoreMem(rS, cur, asm.R3, asm.DWord).WithSymbol(not4),
		asm.Mov.Imm(asm.R1, 8).WithSymbol(not4+"_b"),
	)
	// The groups, from the last: one a callback.
	g.bpfLoop(func(brk string) {
		next, noRun, noColon, nonZero, digitsDone := g.label("g_next"), g.label("g_nr"), g.label("g_nc"), g.label("g_nz"), g.label("g_dd")
		put := func(r asm.Register) {
			g.emit(asm.Mov.Reg(asm.R5, rS), asm.Add.Imm(asm.R5, int32(w)), asm.Add.Reg(asm.R5, asm.R3),
				asm.StoreMem(asm.R5, 0, r, asm.Byte), asm.Sub.Imm(asm.R3, 1))
		}
		g.emit(
			asm.LoadMem(asm.R2, rS, ii, asm.DWord), // i
			asm.JSLT.Imm(asm.R2, 0, brk),
			asm.JSGT.Imm(asm.R2, 14, brk),
			asm.LoadMem(asm.R3, rS, cur, asm.DWord),
			asm.JSLT.Imm(asm.R3, 6, brk),
			asm.JSGT.Imm(asm.R3, inetLast, brk),
			asm.LoadMem(asm.R4, rS, fz, asm.DWord),
			asm.LoadMem(asm.R0, rS, nz, asm.DWord),
			asm.Add.Reg(asm.R0, asm.R4),
			asm.Sub.Imm(asm.R0, 2),
			asm.JNE.Reg(asm.R2, asm.R0, noRun),
			// the run: "::", and on past it
			asm.Mov.Imm(asm.R0, ':'),
		)
		put(asm.R0)
		put(asm.R0)
		g.emit(
			asm.LoadMem(asm.R0, rS, nz, asm.DWord),
			asm.Sub.Imm(asm.R0, 2),
			asm.Sub.Reg(asm.R2, asm.R0),
			asm.Ja.Label(next),
			asm.JSGE.Imm(asm.R2, 14, noColon).WithSymbol(noRun),
			asm.Sub.Imm(asm.R4, 2),
			asm.JEq.Reg(asm.R2, asm.R4, noColon),
			asm.Mov.Imm(asm.R0, ':'),
		)
		put(asm.R0)
		g.emit(
			asm.Mov.Reg(asm.R4, rS).WithSymbol(noColon), asm.Add.Imm(asm.R4, int32(raw)), asm.Add.Reg(asm.R4, asm.R2),
			asm.LoadMem(asm.R0, asm.R4, 0, asm.Byte),
			asm.LoadMem(asm.R4, asm.R4, 1, asm.Byte),
			asm.LSh.Imm(asm.R0, 8),
			asm.Or.Reg(asm.R4, asm.R0), // val
			asm.JNE.Imm(asm.R4, 0, nonZero),
			asm.Mov.Imm(asm.R0, '0'),
		)
		put(asm.R0)
		g.emit(asm.Ja.Label(digitsDone), asm.Mov.Imm(asm.R0, 0).WithSymbol(nonZero))
		for d := 0; d < 4; d++ {
			letter, have := g.label("g_l"), g.label("g_h")
			g.emit(
				asm.JEq.Imm(asm.R4, 0, digitsDone),
				asm.Mov.Reg(asm.R0, asm.R4), asm.And.Imm(asm.R0, 15),
				asm.JGE.Imm(asm.R0, 10, letter),
				asm.Add.Imm(asm.R0, '0'),
				asm.Ja.Label(have),
				asm.Add.Imm(asm.R0, 'a'-10).WithSymbol(letter),
				asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(have),
			)
			put(asm.R0)
			g.emit(asm.RSh.Imm(asm.R4, 4))
		}
		g.emit(
			asm.Mov.Imm(asm.R0, 0).WithSymbol(digitsDone),
			asm.Sub.Imm(asm.R2, 2).WithSymbol(next),
			asm.StoreMem(rS, ii, asm.R2, asm.DWord),
			asm.StoreMem(rS, cur, asm.R3, asm.DWord),
		)
	})
}
