package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/plan"
)

// intFunc compiles the integer-valued subroutines of this file into R0;
// it reports false for the others.
func (g *gen) intFunc(name string, x *ast.CallExpr) bool {
	switch name {
	case "index":
		g.strSearch(x, srchIndex)
	case "rindex":
		g.strSearch(x, srchRindex)
	case "strtoll":
		g.strtoll(x)
	case "alloca":
		g.alloca(x)
	case "copyinto":
		if g.onlyCurrent(x.Pos(), "copyinto( )") {
			g.copyToScratch(x, 0, 1, 2, asm.FnProbeReadUser) // copyout.go
		}
	case "bcopy":
		g.copyToScratch(x, 0, 2, 1, asm.FnProbeReadKernel)
	case "copyout":
		if g.onlyCurrent(x.Pos(), "copyout( )") {
			g.copyout(x)
		}
	case "copyoutstr":
		if g.onlyCurrent(x.Pos(), "copyoutstr( )") {
			g.copyoutstr(x)
		}
	case "getmajor":
		// the kernel's dev_t: 12 bits of major above 20 of minor (MINORBITS)
		g.expr(x.Args[0])
		g.emit(asm.LSh.Imm(asm.R0, 32), asm.RSh.Imm(asm.R0, 32+20))
	case "getminor":
		g.expr(x.Args[0])
		g.emit(asm.And.Imm(asm.R0, 0xfffff))
	default:
		return false
	}
	return true
}

// constArg returns argument i as an integer constant.
func (g *gen) constArg(x *ast.CallExpr, i int) (int64, bool) {
	k, ok := g.info.Consts[ast.Unparen(x.Args[i])]
	if !ok || k.IsStr {
		return 0, false
	}
	return k.Int, true
}

// strtoll(s [, base]) as dtrace_strtoll: blanks and tabs, one sign, for
// base 16 a "0x" or "0X" followed by a hexadecimal digit, then the longest
// run of digits of the base, accumulated in 64 bits without an overflow
// check. A base outside 2..36 is an illegal operation.
func (g *gen) strtoll(x *ast.CallExpr) {
	base := int64(10)
	if len(x.Args) > 1 {
		b, ok := g.constArg(x, 1)
		if !ok {
			g.errorf(x.Args[1].Pos(), "strtoll( ) base must be an integer constant")
			return
		}
		base = b
	}
	s := g.strExpr(x.Args[0])
	if base < 2 || base > 36 {
		g.emit(asm.LoadImm(regTmp, base, asm.DWord))
		g.fault(plan.FaultIllOp, regTmp, x.Pos())
		return
	}
	S := s.size
	a := g.strCopy(s, S+8) // room to look two bytes past the last
	val, neg, phase := int16(g.temp(8)), int16(g.temp(8)), int16(g.temp(8))
	g.emit(scratch64(val, 0), scratch64(neg, 0), scratch64(phase, 0), asm.Mov.Imm(asm.R1, int32(S)))
	const (
		blanks = iota
		sign
		prefix
		digits
		skipX // the 'x' of "0x"
	)
	g.bpfLoop(func(brk string) {
		next := g.label("sl_next")
		notBlank, notSign, notPrefix, notX := g.label("sl_nb"), g.label("sl_ns"), g.label("sl_np"), g.label("sl_nx")
		setPhase := func(p int32) asm.Instruction { return scratch64(phase, p) }
		g.emit(
			asm.JGT.Imm(regLoopIdx, int32(S-1), brk),
			asm.Mov.Reg(asm.R2, rS), asm.Add.Imm(asm.R2, int32(a)), asm.Add.Reg(asm.R2, regLoopIdx),
			asm.LoadMem(asm.R3, asm.R2, 0, asm.Byte),
			asm.LoadMem(asm.R4, rS, phase, asm.DWord),
			// blanks
			asm.JNE.Imm(asm.R4, blanks, notBlank),
			asm.JEq.Imm(asm.R3, ' ', next),
			asm.JEq.Imm(asm.R3, '\t', next),
			asm.Mov.Imm(asm.R4, sign),
			// one sign
			asm.JNE.Imm(asm.R4, sign, notSign).WithSymbol(notBlank),
			asm.Mov.Imm(asm.R4, prefix),
			setPhase(prefix),
			asm.JEq.Imm(asm.R3, '+', next),
			asm.JNE.Imm(asm.R3, '-', notSign),
			scratch64(neg, 1),
			asm.Ja.Label(next),
			// "0x" before a hexadecimal digit, for base 16
			asm.JNE.Imm(asm.R4, prefix, notPrefix).WithSymbol(notSign),
			asm.Mov.Imm(asm.R4, digits),
			setPhase(digits),
		)
		if base == 16 {
			hex := g.label("sl_hex")
			g.emit(
				asm.JNE.Imm(asm.R3, '0', notPrefix),
				asm.LoadMem(asm.R5, asm.R2, 1, asm.Byte),
				asm.Or.Imm(asm.R5, 0x20),
				asm.JNE.Imm(asm.R5, 'x', notPrefix),
				asm.LoadMem(asm.R5, asm.R2, 2, asm.Byte),
				asm.Mov.Reg(asm.R0, asm.R5), asm.Sub.Imm(asm.R0, '0'),
				asm.JLT.Imm(asm.R0, 10, hex),
				asm.Or.Imm(asm.R5, 0x20), asm.Sub.Imm(asm.R5, 'a'),
				asm.JGE.Imm(asm.R5, 6, notPrefix),
				setPhase(skipX).WithSymbol(hex),
				asm.Ja.Label(next),
			)
		}
		g.emit(
			asm.JNE.Imm(asm.R4, skipX, notX).WithSymbol(notPrefix),
			setPhase(digits),
			asm.Ja.Label(next),
		)
		// digits: 0-9, then letters for 10-35, while below the base
		letter, have := g.label("sl_let"), g.label("sl_have")
		g.emit(
			asm.Mov.Reg(asm.R5, asm.R3).WithSymbol(notX),
			asm.Sub.Imm(asm.R5, '0'),
			asm.JLT.Imm(asm.R5, 10, have),
			asm.Mov.Reg(asm.R5, asm.R3), asm.Sub.Imm(asm.R5, 'a'),
			asm.JLT.Imm(asm.R5, 26, letter),
			asm.Mov.Reg(asm.R5, asm.R3), asm.Sub.Imm(asm.R5, 'A'),
			asm.JGE.Imm(asm.R5, 26, brk),
			asm.Add.Imm(asm.R5, 10).WithSymbol(letter),
			asm.JGE.Imm(asm.R5, int32(base), brk).WithSymbol(have),
			asm.LoadMem(asm.R0, rS, val, asm.DWord),
			asm.Mul.Imm(asm.R0, int32(base)),
			asm.Add.Reg(asm.R0, asm.R5),
			asm.StoreMem(rS, val, asm.R0, asm.DWord),
			asm.Mov.Imm(asm.R0, 0).WithSymbol(next),
		)
	})
	pos := g.label("sl_pos")
	g.emit(
		asm.LoadMem(asm.R0, rS, val, asm.DWord),
		asm.LoadMem(asm.R1, rS, neg, asm.DWord),
		asm.JEq.Imm(asm.R1, 0, pos),
		asm.Neg.Imm(asm.R0, 0),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(pos),
	)
}

// alloca(size): zeroed clause scratch space (DTrace's is 8-byte aligned,
// valid until the clause ends), its address in R0.
func (g *gen) alloca(x *ast.CallExpr) {
	n, ok := g.constArg(x, 0)
	if !ok {
		// a size known when the code runs: the room of the largest
		g.expr(x.Args[0])
		g.runtimeSize(x.Args[0].Pos())
		g.stack -= 8
		off := g.temp(maxRuntimeSize)
		g.zero(off, maxRuntimeSize)
		g.emit(asm.Mov.Reg(asm.R0, rS), asm.Add.Imm(asm.R0, int32(off)))
		return
	}
	if n <= 0 || n > maxRuntimeSize {
		g.errorf(x.Args[0].Pos(), "alloca( ) size must be from 1 to %d", maxRuntimeSize)
		return
	}
	off := g.temp(int(n))
	g.zero(off, roundUp(int(n), 8))
	g.emit(asm.Mov.Reg(asm.R0, rS), asm.Add.Imm(asm.R0, int32(off)))
}
