package codegen

// svar.go compiles D variables of struct and union type (check/svar.go):
// a global's storage is in the globals map value, a self-> variable's in
// the thread's storage, a this-> variable's in clause scratch, and an
// associative array's struct values are its map's values. Their members
// are read through the memory paths of declared structs (xlate.go's
// lvalAddr) and written here with stores the verifier can follow: the
// address is always a map value pointer plus an offset it knows the
// bounds of. An associative array element a member assignment names is
// created, zero-filled, when it does not exist, as DTrace faults it in;
// a read of a missing element reads zeros.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
)

// svarRooted reports whether e lies in the storage of a struct-typed
// variable.
func (g *gen) svarRooted(e ast.Expr) bool { return check.SvarRoot(g.info, e) != nil }

// svarAddr puts into R0 the address of e, which lies in a struct-typed
// variable. For a write (fail set) a missing associative array element is
// created; when it cannot be, the code jumps to fail. For a read (fail
// empty) a missing element reads as zeros.
func (g *gen) svarAddr(e ast.Expr, fail string) {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		g.emit(asm.LoadMapValue(asm.R0, 0, uint32(g.globals[g.info.Uses[x]].off)).WithReference(plan.MapGlobals))
		return
	case *ast.SelfVar:
		g.emit(asm.Mov.Reg(asm.R0, regSelf), asm.Add.Imm(asm.R0, int32(g.selfs[g.info.Uses[x]].off)))
		return
	case *ast.ThisVar:
		g.emit(asm.Mov.Reg(asm.R0, rS), asm.Add.Imm(asm.R0, int32(g.thiss[g.info.Uses[x]].off)))
		return
	case *ast.SelectorExpr:
		g.svarAddr(x.X, fail)
		g.addFieldOffset(g.info.Fields[x]) // ktype.go
		return
	case *ast.IndexExpr:
		if v := g.info.Uses[ast.Unparen(x.X)]; v != nil && v.Assoc {
			g.svarElem(x, v, fail)
			return
		}
		at := g.arrayTypeOf(x.X)
		if at == nil || at.Elem == nil || at.Elem.Size <= 0 {
			break
		}
		g.svarAddr(x.X, fail)
		s := g.push()
		g.expr(x.Indices[0])
		ok := g.label("sv_idx")
		g.emit(asm.JLT.Imm(asm.R0, int32(at.Size/at.Elem.Size), ok), asm.Mov.Reg(regTmp, asm.R0))
		g.fault(plan.FaultBadIndex, regTmp, x.Indices[0].Pos())
		g.emit(asm.Mul.Imm(asm.R0, int32(at.Elem.Size)).WithSymbol(ok))
		g.pop(asm.R1, s)
		g.emit(asm.Add.Reg(asm.R0, asm.R1))
		return
	}
	g.errorf(e.Pos(), "%s is not in a struct variable", describeExpr(e))
}

// arrayTypeOf is the array type of e, an array member or a row of one (a
// char array member is typed as the string it reads as).
func (g *gen) arrayTypeOf(e ast.Expr) *check.Type {
	if s, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
		if f := g.info.Fields[s]; f != nil && f.Type.Kind == check.Array {
			return f.Type
		}
	}
	if t := g.typeOf(e); t.Kind == check.Array {
		return t
	}
	return nil
}

// svarElem puts into R0 the address of the value of element x of v, an
// associative array of structs (see svarAddr).
func (g *gen) svarElem(x *ast.IndexExpr, v *check.Var, fail string) {
	a := g.assoc[v]
	key := g.assocKey(a, x.Indices)
	lookup := func() {
		g.emit(
			asm.LoadMapPtr(asm.R1, 0).WithReference(a.name),
			asm.Mov.Reg(asm.R2, rS),
			asm.Add.Imm(asm.R2, int32(key)),
			asm.FnMapLookupElem.Call(),
		)
	}
	found := g.label("sv_found")
	lookup()
	g.emit(asm.JNE.Imm(asm.R0, 0, found))
	zero := g.temp(a.valSize)
	g.zero(zero, a.valSize)
	if fail == "" {
		g.emit(asm.Mov.Reg(asm.R0, rS), asm.Add.Imm(asm.R0, int32(zero)), asm.Ja.Label(found))
	} else {
		g.emit(
			asm.LoadMapPtr(asm.R1, 0).WithReference(a.name),
			asm.Mov.Reg(asm.R2, rS),
			asm.Add.Imm(asm.R2, int32(key)),
			asm.Mov.Reg(asm.R3, rS),
			asm.Add.Imm(asm.R3, int32(zero)),
			asm.Mov.Imm(asm.R4, 1), // BPF_NOEXIST: another CPU may have made it
			asm.FnMapUpdateElem.Call(),
		)
		lookup()
		g.emit(asm.JNE.Imm(asm.R0, 0, found))
		g.stat(plan.StatDynDrops)
		g.emit(asm.Ja.Label(fail))
	}
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(found))
}

// isMemberLhs reports whether lv is written as a member or an element of
// an array member (s.m, s.a[i]) of a struct-typed variable.
func (g *gen) isMemberLhs(lv ast.Expr) bool {
	switch x := ast.Unparen(lv).(type) {
	case *ast.SelectorExpr:
		return g.svarRooted(x)
	case *ast.IndexExpr:
		if v := g.info.Uses[ast.Unparen(x.X)]; v != nil && v.Assoc {
			return false
		}
		return g.svarRooted(x)
	}
	return false
}

// svarStore writes R0 to lv, an integer member (or element of an array
// member) of a struct-typed variable, and leaves the value as stored in R0.
func (g *gen) svarStore(lv ast.Expr) {
	s := g.push()
	fail, end := g.label("sv_fail"), g.label("sv_end")
	g.svarAddr(lv, fail)
	g.emit(asm.Mov.Reg(asm.R1, asm.R0), asm.LoadMem(asm.R0, asm.R10, s, asm.DWord))
	g.storeAt(lv, s)
	g.emit(asm.Ja.Label(end), asm.LoadMem(asm.R0, asm.R10, s, asm.DWord).WithSymbol(fail))
	g.stack -= 8
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end))
}

// storeAt stores the value in R0 (also in stack slot s) to lv, whose
// address is in R1, a pointer the verifier knows; a bit-field is read,
// changed and written, and R0 is left with the value the field holds.
func (g *gen) storeAt(lv ast.Expr, s int16) {
	var f *check.Field
	if sel, ok := ast.Unparen(lv).(*ast.SelectorExpr); ok {
		f = g.info.Fields[sel]
	}
	t := g.typeOf(lv)
	if f != nil && f.Bits > 0 {
		// read-modify-write of the bit-field's storage unit
		size := memSize(f.Type.Size)
		mask := uint64(1)<<uint(f.Bits) - 1
		g.emit(
			asm.LoadImm(asm.R3, int64(mask), asm.DWord),
			asm.And.Reg(asm.R0, asm.R3),
			asm.LSh.Imm(asm.R0, int32(f.BitOff)),
			asm.LSh.Imm(asm.R3, int32(f.BitOff)),
			asm.Xor.Imm(asm.R3, -1),
			asm.LoadMem(asm.R2, asm.R1, 0, size),
			asm.And.Reg(asm.R2, asm.R3),
			asm.Or.Reg(asm.R2, asm.R0),
			asm.StoreMem(asm.R1, 0, asm.R2, size),
			// the value of the assignment is the value the field holds
			asm.LoadMem(asm.R0, asm.R10, s, asm.DWord),
			asm.LSh.Imm(asm.R0, int32(64-f.Bits)),
		)
		if f.Type.Signed {
			g.emit(asm.ArSh.Imm(asm.R0, int32(64-f.Bits)))
		} else {
			g.emit(asm.RSh.Imm(asm.R0, int32(64-f.Bits)))
		}
	} else {
		size := t.Size
		if t.Kind == check.Pointer || size <= 0 {
			size = 8
		}
		g.emit(asm.StoreMem(asm.R1, 0, asm.R0, memSize(size)))
	}
}

// isScratchLhs reports whether lv is memory through a kernel pointer (*p,
// p->m, p[i]), which scratchStore writes.
func (g *gen) isScratchLhs(lv ast.Expr) bool {
	switch x := ast.Unparen(lv).(type) {
	case *ast.UnaryExpr:
		return x.Op == token.MUL
	case *ast.SelectorExpr:
		return g.info.Fields[x] != nil
	case *ast.IndexExpr:
		return g.typeOf(x.X).Kind == check.Pointer || g.arrayTypeOf(x.X) != nil
	}
	return false
}

// scratchStore writes R0 to lv, memory a kernel pointer points to, when
// it lies in the clause's scratch memory (alloca(), copyin()): there the
// store goes through a pointer the verifier knows; anywhere else the
// clause faults with an invalid address, as DTrace's dtrace_canstore
// refuses the store.
func (g *gen) scratchStore(lv ast.Expr) {
	s := g.push()
	size := g.svarSize(lv)
	if sel, ok := ast.Unparen(lv).(*ast.SelectorExpr); ok {
		if f := g.info.Fields[sel]; f != nil && f.Bits > 0 {
			size = f.Type.Size
		}
	}
	size = max(size, 1)
	g.lvalAddrOf(lv, false)
	tmp := int16(g.temp(8))
	bad, ok := g.label("ss_bad"), g.label("ss_ok")
	g.scratchOffset(tmp)
	g.emit(
		asm.JSLT.Imm(asm.R2, int32(g.tempBase), bad),
		asm.JSGT.Imm(asm.R2, int32(g.recBase-size), bad),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Reg(asm.R1, asm.R2),
		asm.LoadMem(asm.R0, asm.R10, s, asm.DWord),
	)
	g.storeAt(lv, s)
	g.emit(asm.Ja.Label(ok), asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(bad))
	g.fault(plan.FaultBadAddr, regTmp, lv.Pos())
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(ok))
	g.stack -= 8
}

// svarStorageType is the type of lv's storage when lv is a member (a
// char array, not the string it reads as), else nil.
func (g *gen) svarStorageType(lv ast.Expr) *check.Type {
	if x, ok := ast.Unparen(lv).(*ast.SelectorExpr); ok {
		if f := g.info.Fields[x]; f != nil {
			return f.Type
		}
	}
	return nil
}

// svarSize is the size of lv's storage: a member's (a char array's, not
// the string it reads as) or an element's.
func (g *gen) svarSize(lv ast.Expr) int {
	switch x := ast.Unparen(lv).(type) {
	case *ast.SelectorExpr:
		if f := g.info.Fields[x]; f != nil {
			return f.Type.Size
		}
	case *ast.IndexExpr:
		if v := g.info.Uses[ast.Unparen(x.X)]; v == nil || !v.Assoc {
			if at := g.arrayTypeOf(x.X); at != nil {
				return at.Elem.Size
			}
		}
	}
	if v := g.info.Uses[ast.Unparen(lv)]; v != nil && v.Type != nil {
		return v.Type.Size
	}
	return g.typeOf(lv).Size
}

// svarStoreStr writes the string e into lv, a string or char array
// member of a struct-typed variable: the member's bytes, NUL-padded (a
// char array keeps no NUL when the string fills it, as in C).
func (g *gen) svarStoreStr(lv, e ast.Expr) {
	size := g.svarSize(lv)
	n := roundUp(size, 8)
	if t := g.svarStorageType(lv); t != nil && t.Kind == check.Array {
		n = roundUp(size+1, 8) // every byte of a char array may hold text
	}
	tmp := g.temp(n)
	g.strInto(e, tmp, n)
	fail := g.label("sv_fail")
	g.svarAddr(lv, fail)
	g.emit(
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, int32(size)),
		asm.Mov.Reg(asm.R3, rS),
		asm.Add.Imm(asm.R3, int32(tmp)),
		asm.FnProbeReadKernel.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(fail),
	)
}

// structFrom copies the struct value e (of size bytes) to the address
// that the code emitted by dst puts in R0; dst jumps to fail when there is
// no storage. A source in user memory is read as copyin reads it, and a
// bad address faults.
func (g *gen) structFrom(e ast.Expr, size int, dst func(fail string)) {
	var user bool
	if g.svarRooted(e) {
		g.svarAddr(e, "")
	} else {
		user = g.lvalAddr(e) // xlate.go: *p, p->m, translations
	}
	src := g.push()
	fail := g.label("sv_fail")
	dst(fail)
	fn := asm.FnProbeReadKernel
	if user {
		fn = asm.FnProbeReadUser
	}
	g.emit(
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, int32(size)),
		asm.LoadMem(asm.R3, asm.R10, src, asm.DWord),
		fn.Call(),
	)
	ok := g.label("sv_copied")
	g.emit(asm.JEq.Imm(asm.R0, 0, ok), asm.LoadMem(regTmp, asm.R10, src, asm.DWord))
	g.fault(plan.FaultBadAddr, regTmp, e.Pos())
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(fail))
	g.stack -= 8
}

// assignStruct compiles lhs = e for a struct or union value: a copy of
// its bytes into the variable, the associative array element or the
// member lhs names.
func (g *gen) assignStruct(x *ast.AssignExpr, lt *check.Type) {
	lhs := ast.Unparen(x.X)
	size := lt.Size
	if ix, ok := lhs.(*ast.IndexExpr); ok {
		if v := g.info.Uses[ast.Unparen(ix.X)]; v != nil && v.Assoc {
			a := g.assoc[v]
			g.assocStore(ix, func(val int) {
				if a.valSize > size {
					g.zero(val, a.valSize)
				}
				g.structFrom(x.Y, size, func(string) {
					g.emit(asm.Mov.Reg(asm.R0, rS), asm.Add.Imm(asm.R0, int32(val)))
				})
			}, false)
			return
		}
	}
	g.structFrom(x.Y, size, func(fail string) { g.svarAddr(lhs, fail) })
}

// structVarValue refuses a struct-typed variable where an integer is
// needed; it reports whether e is one.
func (g *gen) structVarValue(e ast.Expr) bool {
	if v := g.info.Uses[e]; v != nil && !v.Assoc && v.Type != nil && v.Type.Kind == check.Struct {
		g.errorf(e.Pos(), "a %s value cannot be used as an integer", v.Type)
		return true
	}
	return false
}
