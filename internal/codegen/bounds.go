package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
)

// Subscripts are checked as DTrace checks its loads: an index outside an
// array whose length is known (a member of a declared struct, also one
// copied in or built by a translator, a char array read as a string), or
// a subscript of a pointer into scratch memory that leaves the clause's
// temporaries, faults with an invalid address instead of reading other
// memory.

// arrayLen returns the number of elements of the array e designates, or 0
// when it is not known (a flexible array member).
func (g *gen) arrayLen(e ast.Expr) int {
	t := g.typeOf(e)
	if t.Kind != check.Array {
		if s, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
			if f := g.info.Fields[s]; f != nil {
				t = f.Type
			}
		}
	}
	if t.Kind != check.Array || t.Elem == nil || t.Elem.Size <= 0 {
		return 0
	}
	return t.Size / t.Elem.Size
}

// checkIndex checks a subscript whose element address is in R0, its index
// in R2 and its base address in R1: against n elements when n > 0 (as an
// unsigned number, so that a negative index is out of range too), or,
// when the base is a kernel pointer (n < 0) into scratch memory, against
// the clause's temporaries (whatever copyin() and alloca() return).
func (g *gen) checkIndex(n, size int, user bool, pos token.Pos) {
	ok := g.label("idx_ok")
	switch {
	case n > 0:
		g.emit(asm.JLT.Imm(asm.R2, int32(n), ok))
	case n < 0 && !user:
		g.scratchBound(size, ok)
	default:
		return
	}
	g.fault(plan.FaultBadAddr, asm.R0, pos)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(ok))
}

// scratchBound jumps to ok unless the base address in R1 is in scratch
// memory and the element of size bytes at R0 is not within the clause's
// temporaries. Addresses are compared as plain numbers, read back from
// scratch memory, which keeps no pointer types.
func (g *gen) scratchBound(size int, ok string) {
	tmp := int16(g.temp(8))
	lo, hi := g.tempBase, g.recBase-size
	scratch := g.zeroBase + g.maxZero
	if g.opts.FullScratch || scratch <= 0 {
		scratch = maxScratch
	}
	bad := g.label("idx_bad")
	g.emit(
		asm.StoreMem(rS, tmp, asm.R0, asm.DWord),
		asm.LoadMem(asm.R0, rS, tmp, asm.DWord),
		asm.StoreMem(rS, tmp, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, rS, tmp, asm.DWord),
		asm.StoreMem(rS, tmp, rS, asm.DWord),
		asm.LoadMem(asm.R3, rS, tmp, asm.DWord),
		asm.Sub.Reg(asm.R1, asm.R3),
		asm.JGE.Imm(asm.R1, int32(scratch), ok), // not a scratch address
		asm.Mov.Reg(asm.R4, asm.R0),
		asm.Sub.Reg(asm.R4, asm.R3),
		asm.JSLT.Imm(asm.R4, int32(lo), bad),
		asm.JSLE.Imm(asm.R4, int32(hi), ok),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(bad),
	)
}
