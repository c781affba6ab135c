package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/provider"
)

// What a substring search is for.
const (
	srchIndex = iota
	srchRindex
	srchStrstr
)

// strCopy copies the string at src into a new zeroed scratch area of n
// bytes (n at least src.size) and returns its offset. At most strsize-1
// bytes are copied, as long as a string variable can hold.
func (g *gen) strCopy(src strLoc, n int) int {
	off := g.temp(n)
	g.zero(off, n)
	g.emit(asm.Mov.Imm(asm.R4, int32(min(src.size, g.opts.StrSize))))
	g.kstr(off, asm.R0, asm.R4, func(r asm.Register) { g.addr(r, src) })
	return off
}

// strSearch finds sub in s as DTrace's index(), rindex() and strstr() do
// (dtrace_dif_subr, DIF_SUBR_STRSTR/INDEX/RINDEX: Perl's rules for the
// optional start position; an empty sub is found at the start position,
// rindex() starting from the end of s). R0 gets the position found, or -1.
// It returns the scratch copy of s (zero-padded) for strstr().
func (g *gen) strSearch(x *ast.CallExpr, kind int) strLoc {
	s := g.strExpr(x.Args[0])
	sub := g.strExpr(x.Args[1])
	slot := func() int16 { return int16(g.temp(8)) }
	pos := slot()
	if len(x.Args) > 2 {
		g.expr(x.Args[2])
		g.emit(asm.StoreMem(rS, pos, asm.R0, asm.DWord))
	}
	S, T := s.size, sub.size
	a := g.strCopy(s, S+T) // room to compare sub at any position of s
	b := g.strCopy(sub, T) // NUL-padded: sub ends at its first 0
	slen, sublen, start, res := slot(), slot(), slot(), slot()
	g.strlen(strLoc{area: inScratch, off: a, size: S})
	g.emit(asm.StoreMem(rS, slen, asm.R0, asm.DWord))
	g.strlen(strLoc{area: inScratch, off: b, size: T})
	g.emit(asm.StoreMem(rS, sublen, asm.R0, asm.DWord))

	done := g.label("sr_done")
	nonEmpty := g.label("sr_ne")
	g.emit(
		scratch64(res, -1),
		asm.LoadMem(asm.R1, rS, slen, asm.DWord),
		asm.LoadMem(asm.R2, rS, sublen, asm.DWord),
		// both empty: strstr() gives s, index() and rindex() 0, whatever the position
		asm.JNE.Imm(asm.R1, 0, nonEmpty),
		asm.JNE.Imm(asm.R2, 0, nonEmpty),
		scratch64(res, 0),
		asm.Ja.Label(done),
		asm.Mov.Imm(asm.R3, 0).WithSymbol(nonEmpty), // R3: start position
	)
	switch kind {
	case srchIndex:
		if len(x.Args) > 2 {
			ok, clamped := g.label("sr_pos"), g.label("sr_in")
			g.emit(
				asm.LoadMem(asm.R3, rS, pos, asm.DWord),
				asm.JSGE.Imm(asm.R3, 0, ok),
				asm.Mov.Imm(asm.R3, 0),
				// at or past the end: only "" is found, at the length
				asm.JSLT.Reg(asm.R3, asm.R1, clamped).WithSymbol(ok),
				asm.JNE.Imm(asm.R2, 0, done),
				asm.StoreMem(rS, res, asm.R1, asm.DWord),
				asm.Ja.Label(done),
				asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(clamped),
			)
		}
		// positions start .. len-1
		g.emit(asm.Mov.Reg(asm.R4, asm.R1), asm.Sub.Reg(asm.R4, asm.R3))
	case srchRindex:
		g.emit(asm.Mov.Reg(asm.R3, asm.R1))
		if len(x.Args) > 2 {
			nonNeg, clamped := g.label("sr_nn"), g.label("sr_in")
			g.emit(
				asm.LoadMem(asm.R3, rS, pos, asm.DWord),
				// before the start: only "" is found, at 0
				asm.JSGE.Imm(asm.R3, 0, nonNeg),
				asm.JNE.Imm(asm.R2, 0, done),
				scratch64(res, 0),
				asm.Ja.Label(done),
				asm.JSLE.Reg(asm.R3, asm.R1, clamped).WithSymbol(nonNeg),
				asm.Mov.Reg(asm.R3, asm.R1),
				asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(clamped),
			)
		}
		// positions start down to 0
		g.emit(asm.Mov.Reg(asm.R4, asm.R3), asm.Add.Imm(asm.R4, 1))
	case srchStrstr:
		g.emit(asm.Mov.Reg(asm.R4, asm.R1))
	}
	g.emit(
		asm.StoreMem(rS, start, asm.R3, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.R4),
	)
	g.clamp(asm.R1, 0, int32(S))
	g.bpfLoop(func(brk string) {
		g.emit(asm.LoadMem(asm.R1, rS, start, asm.DWord))
		if kind == srchRindex {
			g.emit(asm.Sub.Reg(asm.R1, regLoopIdx))
		} else {
			g.emit(asm.Add.Reg(asm.R1, regLoopIdx))
		}
		loop, match, next := g.label("sr_cmp"), g.label("sr_match"), g.label("sr_next")
		g.emit(
			asm.JSLT.Imm(asm.R1, 0, brk),
			asm.JSGT.Imm(asm.R1, int32(S-1), brk),
			asm.Mov.Reg(asm.R2, rS), asm.Add.Imm(asm.R2, int32(a)), asm.Add.Reg(asm.R2, asm.R1),
			asm.Mov.Reg(asm.R3, rS), asm.Add.Imm(asm.R3, int32(b)),
			asm.Mov.Imm(asm.R0, 0),
			asm.LoadMem(asm.R5, asm.R3, 0, asm.Byte).WithSymbol(loop),
			asm.JEq.Imm(asm.R5, 0, match),
			asm.LoadMem(asm.R4, asm.R2, 0, asm.Byte),
			asm.JNE.Reg(asm.R4, asm.R5, next),
			asm.Add.Imm(asm.R2, 1),
			asm.Add.Imm(asm.R3, 1),
			asm.Add.Imm(asm.R0, 1),
			asm.JLT.Imm(asm.R0, int32(T), loop),
			asm.StoreMem(rS, res, asm.R1, asm.DWord).WithSymbol(match),
			asm.Ja.Label(brk),
			asm.Mov.Imm(asm.R0, 0).WithSymbol(next),
		)
	})
	g.emit(asm.LoadMem(asm.R0, rS, res, asm.DWord).WithSymbol(done))
	return strLoc{area: inScratch, off: a, size: S}
}

// scratch64 stores a 32-bit signed immediate as a u64 in scratch.
func scratch64(off int16, v int32) asm.Instruction {
	return provider.StoreImm64(rS, off, v)
}

// strstr: the rest of s from the first occurrence of sub; DTrace's NULL
// when sub is absent, which compares equal to "" and is stored as "".
func (g *gen) strstr(x *ast.CallExpr, off, n int) {
	s := g.strSearch(x, srchStrstr)
	g.zero(off, n)
	end := g.label("ss_none")
	g.emit(asm.JSLT.Imm(asm.R0, 0, end), asm.Mov.Imm(asm.R5, int32(n)))
	g.substrCopy(off, n, s, asm.R0, asm.R5)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
}
