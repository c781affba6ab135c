package codegen

// cleanpath.go compiles cleanpath(s) as DTrace's dtrace_dif_subr does it,
// one byte at a time: "//" is one slash, "/./" is dropped, "/../" removes
// the component before it (down to the last slash written), and a path
// longer than strsize less 5 bytes is cut there. The loop is a bpf_loop
// callback holding the state of the scan in scratch memory.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
)

// cleanpath writes cleanpath(x.Args[0]) into scratch[off:off+n].
func (g *gen) cleanpath(x *ast.CallExpr, off, n int) {
	s := g.strExpr(x.Args[0])
	src := g.strCopy(s, s.size) // a scratch copy: the callback addresses scratch only
	g.zero(off, n)
	state, j := int16(g.temp(8)), int16(g.temp(8))
	g.emit(scratch64(state, 0), scratch64(j, 0), asm.Mov.Imm(asm.R1, int32(s.size)))
	const (
		normal = iota
		slash  // after '/'
		dot    // after "/."
		dotdot // after "/.."
	)
	g.bpfLoop(func(brk string) {
		// out appends the byte in r (or the constant c when r is 0)
		out := func(r asm.Register, c int32) {
			g.emit(
				asm.LoadMem(asm.R4, rS, j, asm.DWord),
				asm.JGE.Imm(asm.R4, int32(n-1), brk),
				asm.Mov.Reg(asm.R5, rS), asm.Add.Reg(asm.R5, asm.R4),
			)
			if r != 0 {
				g.emit(asm.StoreMem(asm.R5, int16(off), r, asm.Byte))
			} else {
				g.emit(asm.StoreImm(asm.R5, int16(off), int64(c), asm.Byte))
			}
			g.emit(asm.Add.Imm(asm.R4, 1), asm.StoreMem(rS, j, asm.R4, asm.DWord))
		}
		setState := func(v int32) { g.emit(scratch64(state, v)) }
		next := brk + "_next"
		endIfNul := func() { g.emit(asm.JEq.Imm(asm.R3, 0, brk), asm.Ja.Label(next)) }
		sSlash, sDot, sDotdot := g.label("cp_s1"), g.label("cp_s2"), g.label("cp_s3")
		g.emit(
			asm.JGE.Imm(regLoopIdx, int32(s.size), brk),
			asm.LoadMem(asm.R4, rS, j, asm.DWord),
			asm.Add.Imm(asm.R4, 5),
			asm.JGE.Imm(asm.R4, int32(n), brk),
			asm.Mov.Reg(asm.R3, rS), asm.Add.Reg(asm.R3, regLoopIdx),
			asm.LoadMem(asm.R3, asm.R3, int16(src), asm.Byte),
			asm.LoadMem(asm.R2, rS, state, asm.DWord),
			asm.JEq.Imm(asm.R2, slash, sSlash),
			asm.JEq.Imm(asm.R2, dot, sDot),
			asm.JEq.Imm(asm.R2, dotdot, sDotdot),
		)
		// normal
		notSlash := g.label("cp_ns")
		g.emit(asm.JNE.Imm(asm.R3, '/', notSlash))
		setState(slash)
		g.emit(asm.Ja.Label(next))
		g.emit(asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(notSlash))
		out(asm.R3, 0)
		endIfNul()
		// after '/'
		notDot1 := g.label("cp_nd1")
		g.emit(asm.JEq.Imm(asm.R3, '/', next).WithSymbol(sSlash), asm.JNE.Imm(asm.R3, '.', notDot1))
		setState(dot)
		g.emit(asm.Ja.Label(next))
		g.emit(asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(notDot1))
		out(0, '/')
		out(asm.R3, 0)
		setState(normal)
		endIfNul()
		// after "/."
		notSlash2, notDot2 := g.label("cp_ns2"), g.label("cp_nd2")
		g.emit(asm.JNE.Imm(asm.R3, '/', notSlash2).WithSymbol(sDot))
		setState(slash)
		g.emit(asm.Ja.Label(next))
		g.emit(asm.JNE.Imm(asm.R3, '.', notDot2).WithSymbol(notSlash2))
		setState(dotdot)
		g.emit(asm.Ja.Label(next))
		g.emit(asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(notDot2))
		out(0, '/')
		out(0, '.')
		out(asm.R3, 0)
		setState(normal)
		endIfNul()
		// after "/..": "/../" or "/..\0" backs up to the last slash written
		back, other := g.label("cp_back"), g.label("cp_other")
		g.emit(asm.JEq.Imm(asm.R3, '/', back).WithSymbol(sDotdot), asm.JNE.Imm(asm.R3, 0, other))
		g.emit(asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(back))
		g.lastSlashBelow(off, n, j)
		atEnd := g.label("cp_atend")
		g.emit(asm.JEq.Imm(asm.R3, 0, atEnd), asm.StoreMem(rS, j, asm.R0, asm.DWord))
		setState(slash)
		g.emit(asm.Ja.Label(next))
		// "/..\0": DTrace writes '/' after the slash and ends there
		g.emit(asm.Add.Imm(asm.R0, 1).WithSymbol(atEnd), asm.StoreMem(rS, j, asm.R0, asm.DWord), asm.Ja.Label(brk))
		g.emit(asm.Mov.Reg(asm.R3, asm.R3).WithSymbol(other))
		out(0, '/')
		out(0, '.')
		out(0, '.')
		out(asm.R3, 0)
		setState(normal)
		endIfNul()
		g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(next))
	})
	// the NUL where the scan stopped
	end := g.label("cp_end")
	g.emit(
		asm.LoadMem(asm.R4, rS, j, asm.DWord),
		asm.JGE.Imm(asm.R4, int32(n), end),
		asm.Mov.Reg(asm.R5, rS), asm.Add.Reg(asm.R5, asm.R4),
		asm.StoreImm(asm.R5, int16(off), 0, asm.Byte),
		asm.StoreImm(rS, int16(off+n-1), 0, asm.Byte).WithSymbol(end),
	)
}

// lastSlashBelow leaves in R0 the index of the last '/' in
// scratch[off:off+n] below the index in scratch slot j, or 0: DTrace's
// "while (j != 0 && dest[--j] != '/')". R3 is kept. The scan is
// branch-free.
func (g *gen) lastSlashBelow(off, n int, j int16) {
	loop, done := g.label("ls_loop"), g.label("ls_done")
	g.emit(
		asm.Mov.Imm(asm.R0, 0),
		asm.Mov.Imm(asm.R1, 0),
		asm.LoadMem(asm.R5, rS, j, asm.DWord),
		asm.JGE.Imm(asm.R1, int32(n), done).WithSymbol(loop),
		asm.Mov.Reg(asm.R2, rS), asm.Add.Reg(asm.R2, asm.R1),
		asm.LoadMem(asm.R2, asm.R2, int16(off), asm.Byte),
		asm.Xor.Imm(asm.R2, '/'), asm.Sub.Imm(asm.R2, 1), asm.RSh.Imm(asm.R2, 63), // b == '/'
		asm.Mov.Reg(asm.R4, asm.R1), asm.Sub.Reg(asm.R4, asm.R5), asm.RSh.Imm(asm.R4, 63), // i < j
		asm.And.Reg(asm.R2, asm.R4),
		asm.Neg.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R4, asm.R1), asm.Xor.Reg(asm.R4, asm.R0), asm.And.Reg(asm.R4, asm.R2), asm.Xor.Reg(asm.R0, asm.R4),
		asm.Add.Imm(asm.R1, 1),
		asm.Ja.Label(loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done),
	)
}
