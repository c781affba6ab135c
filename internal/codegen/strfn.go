package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/provider"
)

// String subroutines. Sources are made addressable in scratch first; the
// results are written NUL-padded into scratch[off:off+n]. Copies use
// bpf_probe_read_kernel_str, which stops at the NUL and bounds the length,
// so each routine needs at most one bounded loop (for a search).

// kstr copies the NUL-terminated string at src (a register set up by
// setSrc) into scratch[dst + R-offset]; R0 returns bytes copied with NUL.
func (g *gen) kstr(dstOff int, dstVar asm.Register, size asm.Register, setSrc func(asm.Register)) {
	setSrc(asm.R3)
	g.emit(asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(dstOff)))
	if dstVar != asm.R0 {
		g.emit(asm.Add.Reg(asm.R1, dstVar))
	}
	g.emit(asm.Mov.Reg(asm.R2, size), asm.FnProbeReadKernelStr.Call())
}

// clamp bounds register r to [lo, hi] (signed), for the verifier.
func (g *gen) clamp(r asm.Register, lo, hi int32) {
	a, b := g.label("cl_lo"), g.label("cl_hi")
	g.emit(
		asm.JSGE.Imm(r, lo, a), asm.Mov.Imm(r, lo),
		asm.JSLE.Imm(r, hi, b).WithSymbol(a), asm.Mov.Imm(r, hi),
		asm.Mov.Reg(r, r).WithSymbol(b),
	)
}

// strFunc compiles a string-valued subroutine into scratch[off:off+n].
// It reports false when name is not one it knows.
func (g *gen) strFunc(name string, x *ast.CallExpr, off, n int) bool {
	switch name {
	case "strjoin":
		g.strjoin(x, off, n)
	case "substr":
		g.substr(x, off, n)
	case "strchr", "strrchr":
		g.strchr(x, off, n, name == "strrchr")
	case "basename", "dirname":
		g.basename(x, off, n, name == "dirname")
	case "toupper", "tolower":
		g.strInto(x.Args[0], off, n)
		g.caseMap(off, n, name == "toupper")
	case "lltostr":
		g.lltostr(x, off, n)
	case "strstr":
		g.strstr(x, off, n)
	case "strtok":
		g.strtokCall(x, off, n) // strtok.go
	case "cleanpath":
		g.cleanpath(x, off, n) // cleanpath.go
	case "inet_ntoa", "inet_ntoa6", "inet_ntop":
		g.inet(name, x, off, n)
	default:
		return false
	}
	return true
}

// strjoin: a then b, bounded by n.
func (g *gen) strjoin(x *ast.CallExpr, off, n int) {
	a := g.strExpr(x.Args[0])
	b := g.strExpr(x.Args[1])
	tmp := g.temp(2 * n) // room for the verifier's worst case of the second copy
	g.zero(tmp, 2*n)
	g.emit(asm.Mov.Imm(asm.R4, int32(n)))
	g.kstr(tmp, asm.R0, asm.R4, func(r asm.Register) { g.addr(r, a) })
	g.emit(asm.Sub.Imm(asm.R0, 1))
	g.clamp(asm.R0, 0, int32(n-1))
	g.emit(asm.Mov.Reg(regTmp, asm.R0), asm.Mov.Imm(asm.R4, int32(n)), asm.Sub.Reg(asm.R4, regTmp))
	g.clamp(asm.R4, 1, int32(n))
	g.kstr(tmp, regTmp, asm.R4, func(r asm.Register) { g.addr(r, b) })
	g.copyScratch(off, tmp, n)
}

// copyScratch copies n bytes between scratch areas and forces the NUL.
func (g *gen) copyScratch(dst, src, n int) {
	if dst == src {
		return
	}
	g.emit(asm.Mov.Reg(asm.R3, rS), asm.Add.Imm(asm.R3, int32(src)))
	g.copyFromReg(dst, asm.R3, n, n)
}

// substrFrom copies from src+R(start) at most R(count) bytes (plus NUL).
func (g *gen) substrCopy(off, n int, src strLoc, start, count asm.Register) {
	// count+1 bytes including the NUL, bounded by n
	g.emit(asm.Mov.Reg(asm.R4, count), asm.Add.Imm(asm.R4, 1))
	g.clamp(asm.R4, 1, int32(n))
	g.clamp(start, 0, int32(src.size-1))
	g.emit(asm.Mov.Reg(regTmp, start))
	g.kstr(off, asm.R0, asm.R4, func(r asm.Register) { g.addr(r, src); g.emit(asm.Add.Reg(r, regTmp)) })
	g.emit(asm.StoreImm(rS, int16(off+n-1), 0, asm.Byte))
}

// substr(s, i [, len]) as DTrace's dtrace_dif_subr computes it: a
// negative i counts from the end (and, when it reaches before the start,
// shortens len by as much); an i outside the string gives ""; a negative
// len leaves that many bytes off the end; without len, the rest.
func (g *gen) substr(x *ast.CallExpr, off, n int) {
	s := g.strExpr(x.Args[0])
	g.zero(off, n)
	g.strlen(s)
	slen := g.push()
	if len(x.Args) > 2 {
		g.expr(x.Args[2])
	} else {
		g.emit(asm.Mov.Imm(asm.R0, int32(n)))
	}
	rem := g.push()
	g.expr(x.Args[1])
	// R0 index, R1 len, R5 remaining
	g.emit(asm.LoadMem(asm.R1, asm.R10, slen, asm.DWord), asm.LoadMem(asm.R5, asm.R10, rem, asm.DWord))
	pos, in, end := g.label("ss_pos"), g.label("ss_in"), g.label("ss_end")
	g.emit(
		asm.JSGE.Imm(asm.R0, 0, pos),
		asm.Add.Reg(asm.R0, asm.R1),
		asm.JSGE.Imm(asm.R0, 0, pos),
		// index < 0 && index + remaining > 0: remaining += index, index = 0
		asm.Mov.Reg(asm.R2, asm.R0),
		asm.Add.Reg(asm.R2, asm.R5),
		asm.JSLE.Imm(asm.R2, 0, end),
		asm.Mov.Reg(asm.R5, asm.R2),
		asm.Mov.Imm(asm.R0, 0),
		asm.JSGE.Reg(asm.R0, asm.R1, end).WithSymbol(pos), // index >= len: ""
		asm.JSGE.Imm(asm.R5, 0, in),
		// remaining < 0: remaining += len - index
		asm.Add.Reg(asm.R5, asm.R1),
		asm.Sub.Reg(asm.R5, asm.R0),
		asm.JSLE.Imm(asm.R5, 0, end).WithSymbol(in),
	)
	g.substrCopy(off, n, s, asm.R0, asm.R5)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
	g.stack -= 16
}

// lastWhere leaves in R0 the last index i below the bound in stack slot
// bound at which s has a '/' (slash) or not (!slash), or -1. Every byte
// below the bound is part of the string (the bound is at most its
// length). The loop is branch-free but for its bound, so the verifier
// sees one path whatever the bytes are.
func (g *gen) lastWhere(s strLoc, bound int16, slash bool) {
	g.addr(asm.R1, s)
	loop, done := g.label("lw_loop"), g.label("lw_done")
	g.emit(
		asm.Mov.Imm(asm.R0, -1),
		asm.Mov.Imm(asm.R3, 0),
		asm.JGE.Imm(asm.R3, int32(s.size), done).WithSymbol(loop),
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Byte),
		// eq = (b == '/')
		asm.Xor.Imm(asm.R2, '/'), asm.Sub.Imm(asm.R2, 1), asm.RSh.Imm(asm.R2, 63),
	)
	if !slash {
		g.emit(asm.Xor.Imm(asm.R2, 1))
	}
	g.emit(
		// below = (i < bound)
		asm.Mov.Reg(asm.R4, asm.R3),
		asm.LoadMem(asm.R5, asm.R10, bound, asm.DWord),
		asm.Sub.Reg(asm.R4, asm.R5),
		asm.RSh.Imm(asm.R4, 63),
		asm.And.Reg(asm.R2, asm.R4),
		// R0 = hit ? i : R0
		asm.Neg.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R4, asm.R3), asm.Xor.Reg(asm.R4, asm.R0), asm.And.Reg(asm.R4, asm.R2), asm.Xor.Reg(asm.R0, asm.R4),
		asm.Add.Imm(asm.R1, 1),
		asm.Add.Imm(asm.R3, 1),
		asm.Ja.Label(loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done),
	)
}

// findChar leaves in R0 the index of the first (or last) byte c in s, or
// -1; c is in the stack slot cslot. The loop is branch-free but for its
// bound, so the verifier sees one path whatever the bytes are.
func (g *gen) findChar(s strLoc, cslot int16, last bool) {
	g.addr(asm.R1, s)
	loop, done := g.label("fc_loop"), g.label("fc_done")
	g.emit(
		asm.Mov.Imm(asm.R0, -1),
		asm.Mov.Imm(asm.R3, 0),
		provider.StoreImm64(asm.R10, cslot-8, 0), // ended: a NUL was seen
		asm.JGE.Imm(asm.R3, int32(s.size), done).WithSymbol(loop),
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Byte),
		// ended |= (b == 0)
		asm.Mov.Reg(asm.R5, asm.R2), asm.Sub.Imm(asm.R5, 1), asm.RSh.Imm(asm.R5, 63),
		asm.LoadMem(asm.R4, asm.R10, cslot-8, asm.DWord), asm.Or.Reg(asm.R4, asm.R5),
		asm.StoreMem(asm.R10, cslot-8, asm.R4, asm.DWord),
		// hit = (b == c) && !ended
		asm.LoadMem(asm.R5, asm.R10, cslot, asm.DWord), asm.Xor.Reg(asm.R5, asm.R2),
		asm.Sub.Imm(asm.R5, 1), asm.RSh.Imm(asm.R5, 63),
		asm.Xor.Imm(asm.R4, 1), asm.And.Reg(asm.R5, asm.R4),
	)
	if !last {
		// only the first hit: while R0 is still -1 (top bit set)
		g.emit(asm.Mov.Reg(asm.R4, asm.R0), asm.RSh.Imm(asm.R4, 63), asm.And.Reg(asm.R5, asm.R4))
	}
	g.emit(
		// R0 = hit ? i : R0
		asm.Neg.Imm(asm.R5, 0),
		asm.Mov.Reg(asm.R4, asm.R3), asm.Xor.Reg(asm.R4, asm.R0), asm.And.Reg(asm.R4, asm.R5), asm.Xor.Reg(asm.R0, asm.R4),
		asm.Add.Imm(asm.R1, 1),
		asm.Add.Imm(asm.R3, 1),
		asm.Ja.Label(loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done),
	)
}

// strchr/strrchr: the rest of s from the first/last c, or "" when absent.
func (g *gen) strchr(x *ast.CallExpr, off, n int, last bool) {
	s := g.strExpr(x.Args[0])
	g.zero(off, n)
	g.expr(x.Args[1])
	c := g.push()
	g.stack += 8
	g.findChar(s, c, last)
	g.stack -= 8
	end := g.label("sc_end")
	g.emit(asm.JSLT.Imm(asm.R0, 0, end), asm.Mov.Imm(asm.R5, int32(n)))
	g.substrCopy(off, n, s, asm.R0, asm.R5)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
	g.stack -= 8
}

// basename/dirname as DTrace's dtrace_dif_subr computes them: trailing
// slashes are not part of the name ("/usr/lib/" is "lib" in "/usr"), a
// string of slashes is "/" for both, the empty string "." for both, and a
// name with no slash is its own basename in ".".
func (g *gen) basename(x *ast.CallExpr, off, n int, dir bool) {
	s := g.strExpr(x.Args[0])
	g.zero(off, n)
	g.strlen(s)
	bound := g.push()
	end, dot, root := g.label("bn_end"), g.label("bn_dot"), g.label("bn_root")
	copyRange := func() { // s[R0..R5], inclusive
		g.emit(asm.Sub.Reg(asm.R5, asm.R0), asm.Add.Imm(asm.R5, 1))
		g.substrCopy(off, n, s, asm.R0, asm.R5)
		g.emit(asm.Ja.Label(end))
	}
	g.emit(asm.JEq.Imm(asm.R0, 0, dot))
	g.lastWhere(s, bound, false) // lastbase
	g.emit(asm.JSLT.Imm(asm.R0, 0, root))
	lastbase := g.push()
	g.emit(asm.StoreMem(asm.R10, bound, asm.R0, asm.DWord))
	g.lastWhere(s, bound, true) // the slash before it
	if dir {
		g.emit(asm.JSLT.Imm(asm.R0, 0, dot), asm.StoreMem(asm.R10, bound, asm.R0, asm.DWord))
		g.lastWhere(s, bound, false) // lastdir
		top := g.label("bn_top")
		g.emit(asm.JSGE.Imm(asm.R0, 0, top), asm.Mov.Imm(asm.R0, 0))
		g.emit(asm.Mov.Reg(asm.R5, asm.R0).WithSymbol(top), asm.Mov.Imm(asm.R0, 0))
		copyRange()
	} else {
		g.emit(asm.Add.Imm(asm.R0, 1), asm.LoadMem(asm.R5, asm.R10, lastbase, asm.DWord))
		copyRange()
	}
	g.emit(asm.StoreImm(rS, int16(off), '.', asm.Byte).WithSymbol(dot), asm.Ja.Label(end))
	g.emit(asm.StoreImm(rS, int16(off), '/', asm.Byte).WithSymbol(root))
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
	g.stack -= 16
}

// caseMap converts scratch[off:off+n] to upper or lower case in place.
func (g *gen) caseMap(off, n int, upper bool) {
	lo, hi, delta := int32('a'), int32('z'), int32(-32)
	if !upper {
		lo, hi, delta = 'A', 'Z', 32
	}
	g.emit(asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(off)), asm.Mov.Imm(asm.R3, 0))
	loop, done, next := g.label("cm_loop"), g.label("cm_done"), g.label("cm_next")
	g.emit(
		asm.JGE.Imm(asm.R3, int32(n), done).WithSymbol(loop),
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Byte),
		asm.JEq.Imm(asm.R2, 0, done),
		asm.JLT.Imm(asm.R2, lo, next),
		asm.JGT.Imm(asm.R2, hi, next),
		asm.Add.Imm(asm.R2, delta),
		asm.StoreMem(asm.R1, 0, asm.R2, asm.Byte),
		asm.Add.Imm(asm.R1, 1).WithSymbol(next),
		asm.Add.Imm(asm.R3, 1),
		asm.Ja.Label(loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done),
	)
}

// lltostr writes a decimal integer.
func (g *gen) lltostr(x *ast.CallExpr, off, n int) {
	g.expr(x.Args[0])
	tmp := g.temp(24)
	g.zero(tmp, 24)
	g.zero(off, n)
	// R1: cursor from the end; R2: |v|; R5: negative flag
	pos, loop := g.label("lt_pos"), g.label("lt_loop")
	g.emit(
		asm.Mov.Imm(asm.R5, 0),
		asm.JSGE.Imm(asm.R0, 0, pos),
		asm.Mov.Imm(asm.R5, 1),
		asm.Neg.Imm(asm.R0, 0),
		asm.Mov.Reg(asm.R2, asm.R0).WithSymbol(pos),
		asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(tmp+22)),
		asm.Mov.Imm(asm.R3, 0),
		// do { *p-- = '0' + v % 10; v /= 10 } while (v && i < 20)
		asm.Mov.Reg(asm.R4, asm.R2).WithSymbol(loop),
		asm.Mod.Imm(asm.R4, 10),
		asm.Add.Imm(asm.R4, '0'),
		asm.StoreMem(asm.R1, 0, asm.R4, asm.Byte),
		asm.Sub.Imm(asm.R1, 1),
		asm.Div.Imm(asm.R2, 10),
		asm.Add.Imm(asm.R3, 1),
		asm.JEq.Imm(asm.R2, 0, loop+"_e"),
		asm.JLT.Imm(asm.R3, 20, loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(loop+"_e"),
	)
	neg := g.label("lt_nn")
	g.emit(asm.JEq.Imm(asm.R5, 0, neg), asm.StoreImm(asm.R1, 0, '-', asm.Byte), asm.Sub.Imm(asm.R1, 1))
	g.emit(asm.Add.Imm(asm.R1, 1).WithSymbol(neg))
	g.emit(asm.Mov.Reg(asm.R3, asm.R1), asm.Mov.Reg(asm.R1, rS), asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(min(n, 24))), asm.FnProbeReadKernelStr.Call())
}
