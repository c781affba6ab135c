package codegen

// varray.go compiles the elements of array variables (int a[10]; then
// a[i] and a[i][j]): the array is a slice of the globals map value, its
// elements at their natural size. A subscript is checked against the
// array's dimension when the code runs (a constant one was checked by
// the checker) and an index outside faults with plan.FaultBadIndex, as
// Oracle's DTrace reports "index out of bounds".

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/plan"
)

// maxGlobals is the most bytes the globals map value may take (the
// kernel's KMALLOC_MAX_SIZE for an array map's value).
const maxGlobals = 4 << 20

// isArrayVar reports whether v is an array variable with its elements in
// the globals map.
func isArrayVar(v *check.Var) bool {
	return v != nil && v.Scope == check.Global && !v.Assoc && v.Type != nil && v.Type.Kind == check.Array
}

// arrayElem reports whether e is an element (or a row) of an array
// variable: subscripts of arrays down from the variable.
func (g *gen) arrayElem(e ast.Expr) bool {
	for {
		ix, ok := ast.Unparen(e).(*ast.IndexExpr)
		if !ok {
			return false
		}
		base := ast.Unparen(ix.X)
		if _, ok := base.(*ast.IndexExpr); !ok {
			return isArrayVar(g.info.Uses[base])
		}
		if g.typeOf(base).Kind != check.Array {
			return false // a pointer read from an array: memory elsewhere
		}
		e = base
	}
}

// arrayAddr puts into R0 the address of element x of an array variable:
// a pointer into the globals map value, which the bounds check lets the
// verifier accept.
func (g *gen) arrayAddr(x *ast.IndexExpr) {
	base := ast.Unparen(x.X)
	at := g.typeOf(base)
	var s int16
	if inner, ok := base.(*ast.IndexExpr); ok {
		g.arrayAddr(inner)
		s = g.push()
	} else {
		at = g.info.Uses[base].Type
	}
	esize := max(at.Elem.Size, 1)
	g.expr(x.Indices[0])
	ok := g.label("aidx")
	g.emit(asm.JLT.Imm(asm.R0, int32(at.Size/esize), ok), asm.Mov.Reg(regTmp, asm.R0))
	g.fault(plan.FaultBadIndex, regTmp, x.Indices[0].Pos())
	g.emit(asm.Mul.Imm(asm.R0, int32(esize)).WithSymbol(ok))
	if s != 0 {
		g.pop(asm.R1, s)
	} else {
		g.emit(asm.LoadMapValue(asm.R1, 0, uint32(g.globals[g.info.Uses[base]].off)).WithReference(plan.MapGlobals))
	}
	g.emit(asm.Add.Reg(asm.R0, asm.R1))
}

// arrayLoad loads element x of an array variable into R0.
func (g *gen) arrayLoad(x *ast.IndexExpr) {
	t := g.typeOf(x)
	if t.Kind != check.Int && t.Kind != check.Pointer {
		g.errorf(x.Pos(), "a row of an array is not a value: subscript it")
		return
	}
	g.arrayAddr(x)
	g.emit(asm.LoadMem(asm.R0, asm.R0, 0, memSize(t.Size)))
	g.normalize(asm.R0, t)
}

// arrayStore writes R0 to element x of an array variable.
func (g *gen) arrayStore(x *ast.IndexExpr) {
	s := g.push()
	g.arrayAddr(x)
	g.emit(asm.Mov.Reg(asm.R1, asm.R0))
	g.pop(asm.R0, s)
	g.emit(asm.StoreMem(asm.R1, 0, asm.R0, memSize(g.typeOf(x).Size)))
}

// memSize is the load or store width of an n-byte integer.
func memSize(n int) asm.Size {
	switch n {
	case 1:
		return asm.Byte
	case 2:
		return asm.Half
	case 4:
		return asm.Word
	}
	return asm.DWord
}
