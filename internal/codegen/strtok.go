package codegen

// strtok.go compiles strtok(s, delim) as DTrace's dtrace_dif_subr does
// it: strtok(s, ...) starts on s, strtok(NULL, ...) goes on where the last
// call stopped; the bytes of delim are a set; the token is the run of
// bytes not in the set after the run of bytes in it; when the string has
// no more tokens the result is "" (DTrace's NULL, which prints as an
// empty string). The string being cut is kept in a region of the CPU's
// scratch memory of its own, after the this-> variables, so that a later
// clause of the same firing goes on with it.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
)

// strtokState is the layout of strtok's region: the string, then the
// offset the next call starts at, the offset the current call stops at,
// the phase (0 skipping delimiters, 1 copying), the token's length, and
// the delimiter set (a bit per byte value).
type strtokState struct {
	off, size                        int // the region; size: the string's buffer
	pos, next, phase, tokLen, tokmap int
}

// strtokLayout reserves strtok's region at off when the program calls
// strtok, and returns the end of what it reserved.
func (g *gen) strtokLayout(off int) int {
	size := 0
	for call, b := range g.info.Calls {
		if b != nil && b.Name == "strtok" {
			size = max(size, roundUp(g.typeOf(call).Size, 8))
		}
	}
	if size == 0 {
		return off
	}
	st := &strtokState{off: off, size: size}
	st.pos = off + size
	st.next = st.pos + 8
	st.phase = st.next + 8
	st.tokLen = st.phase + 8
	st.tokmap = st.tokLen + 8
	g.strtok = st
	return st.tokmap + 32
}

// strtokCall writes strtok(x...) into scratch[off:off+n].
func (g *gen) strtokCall(x *ast.CallExpr, off, n int) {
	st := g.strtok
	g.zero(off, n)
	if st == nil {
		g.errorf(x.Pos(), "strtok( ) has no state")
		return
	}
	S := st.size
	if t := g.typeOf(x.Args[0]); t.Kind == check.String {
		g.strInto(x.Args[0], st.off, S)
		g.emit(scratch64(int16(st.pos), 0))
	}
	// the delimiter set
	d := g.strExpr(x.Args[1])
	g.zero(st.tokmap, 32)
	g.addr(asm.R1, d)
	loop, done := g.label("tk_set"), g.label("tk_setd")
	g.emit(
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R5, 1), // not ended
		asm.JGE.Imm(asm.R3, int32(d.size), done).WithSymbol(loop),
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Byte),
		// ended once a NUL is seen: R5 &= (b != 0)
		asm.Mov.Reg(asm.R4, asm.R2), asm.Sub.Imm(asm.R4, 1), asm.RSh.Imm(asm.R4, 63), asm.Xor.Imm(asm.R4, 1),
		asm.And.Reg(asm.R5, asm.R4),
		// tokmap[b >> 3] |= R5 << (b & 7)
		asm.Mov.Reg(asm.R4, asm.R2), asm.And.Imm(asm.R4, 7),
		asm.Mov.Reg(asm.R0, asm.R5), asm.LSh.Reg(asm.R0, asm.R4),
		asm.RSh.Imm(asm.R2, 3),
		asm.Add.Reg(asm.R2, rS),
		asm.LoadMem(asm.R4, asm.R2, int16(st.tokmap), asm.Byte),
		asm.Or.Reg(asm.R4, asm.R0),
		asm.StoreMem(asm.R2, int16(st.tokmap), asm.R4, asm.Byte),
		asm.Add.Imm(asm.R1, 1),
		asm.Add.Imm(asm.R3, 1),
		asm.Ja.Label(loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done),
	)
	g.emit(
		scratch64(int16(st.next), int32(S-1)),
		scratch64(int16(st.phase), 0),
		scratch64(int16(st.tokLen), 0),
	)
	dest := int32(off)
	g.emit(asm.Mov.Imm(asm.R1, int32(S)))
	g.bpfLoop(func(brk string) {
		copying, stop := g.label("tk_copy"), g.label("tk_stop")
		g.emit(
			// p = pos + idx, within the string's buffer
			asm.LoadMem(asm.R2, rS, int16(st.pos), asm.DWord),
			asm.Add.Reg(asm.R2, regLoopIdx),
			asm.JGE.Imm(asm.R2, int32(S), brk),
			asm.Mov.Reg(asm.R3, rS), asm.Add.Reg(asm.R3, asm.R2),
			asm.LoadMem(asm.R3, asm.R3, int16(st.off), asm.Byte),
			asm.JEq.Imm(asm.R3, 0, stop),
			// in = tokmap[c >> 3] >> (c & 7) & 1
			asm.Mov.Reg(asm.R4, asm.R3), asm.RSh.Imm(asm.R4, 3),
			asm.Add.Reg(asm.R4, rS),
			asm.LoadMem(asm.R4, asm.R4, int16(st.tokmap), asm.Byte),
			asm.Mov.Reg(asm.R5, asm.R3), asm.And.Imm(asm.R5, 7),
			asm.RSh.Reg(asm.R4, asm.R5), asm.And.Imm(asm.R4, 1),
			asm.LoadMem(asm.R5, rS, int16(st.phase), asm.DWord),
			asm.JNE.Imm(asm.R5, 0, copying),
			// skipping delimiters
			asm.JNE.Imm(asm.R4, 0, brk+"_cont"),
			scratch64(int16(st.phase), 1),
			asm.JNE.Imm(asm.R4, 0, stop).WithSymbol(copying),
			asm.LoadMem(asm.R5, rS, int16(st.tokLen), asm.DWord),
			asm.JGE.Imm(asm.R5, int32(n-1), stop),
			asm.Mov.Reg(asm.R0, rS), asm.Add.Reg(asm.R0, asm.R5),
			asm.StoreMem(asm.R0, int16(dest), asm.R3, asm.Byte),
			asm.Add.Imm(asm.R5, 1),
			asm.StoreMem(rS, int16(st.tokLen), asm.R5, asm.DWord),
			asm.Ja.Label(brk+"_cont"),
			asm.StoreMem(rS, int16(st.next), asm.R2, asm.DWord).WithSymbol(stop),
			asm.Ja.Label(brk),
			asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(brk+"_cont"),
		)
	})
	g.emit(
		asm.LoadMem(asm.R0, rS, int16(st.next), asm.DWord),
		asm.StoreMem(rS, int16(st.pos), asm.R0, asm.DWord),
	)
}
