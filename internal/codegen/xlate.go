package codegen

// xlate.go compiles what check/decl.go gives meaning to: members of
// declared structs read from memory (p->m, s.m, p->a[i], &p->m), and
// translations. A member of a translation is its translator's expression
// for that member alone, compiled where it is used with the translator's
// parameter bound to a stack slot that holds the input, evaluated once; a
// translation used whole (xlate<T *>(e) as a value, a translated args[i])
// is built in clause scratch memory, every member the translator defines
// filled in, and yields its address.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

// xlState is the translator parameters bound while a translator member is
// compiled: the stack slot of each.
type xlState struct {
	bind  map[*check.Translator]int16
	depth int
}

// maxXlateDepth bounds translators compiled within translators (a
// translator defined in terms of itself would never end).
const maxXlateDepth = 16

// xlBind evaluates the input of xl into a new stack slot and binds the
// translator's parameter to it; unbind undoes both.
func (g *gen) xlBind(xl *check.Xlation, pos token.Pos) (unbind func(), ok bool) {
	if g.xl.depth >= maxXlateDepth {
		g.errorf(pos, "translator to %s nests too deeply: is it defined in terms of itself?", xl.X.Out)
		return nil, false
	}
	if in := xl.InType; in != nil && !in.IsScalar() {
		g.errorf(pos, "translator input of type %s is not supported", in)
		return nil, false
	}
	if xl.Input != nil {
		g.expr(xl.Input)
	} else {
		g.loadArg(xl.Arg, xl.InType)
	}
	slot := g.push()
	if g.xl.bind == nil {
		g.xl.bind = map[*check.Translator]int16{}
	}
	prev, had := g.xl.bind[xl.X]
	g.xl.bind[xl.X] = slot
	g.xl.depth++
	return func() {
		g.xl.depth--
		if had {
			g.xl.bind[xl.X] = prev
		} else {
			delete(g.xl.bind, xl.X)
		}
		g.stack -= 8
	}, true
}

// loadArg loads native probe argument n, of type t, into R0.
func (g *gen) loadArg(n int, t *check.Type) {
	if n < 0 || n >= len(g.needs.Args) {
		g.errorf(token.Pos{}, "native argument %d is beyond the %d arguments sonde records", n, len(g.needs.Args))
		return
	}
	g.needs.Args[n] = true
	g.emit(asm.LoadMem(asm.R0, rS, int16(provider.CtxArg0+8*n), asm.DWord))
	g.normalize(asm.R0, t)
}

// xlParam loads a translator parameter; it reports false for other names.
func (g *gen) xlParam(x *ast.Ident) bool {
	tr := g.info.Params[x]
	if tr == nil {
		return false
	}
	slot, ok := g.xl.bind[tr]
	if !ok {
		g.errorf(x.Pos(), "translator parameter %s used outside its translator", x.Name)
		return true
	}
	g.emit(asm.LoadMem(asm.R0, asm.R10, slot, asm.DWord))
	return true
}

// xlValue compiles a translation used as a value into R0: the address of
// the translated struct, built in scratch memory; or, for a probe argument
// that needs no translator, the native argument.
func (g *gen) xlValue(e ast.Expr, xl *check.Xlation) {
	switch {
	case xl.X == nil:
		g.loadArg(xl.Arg, xl.InType)
		g.normalize(asm.R0, g.typeOf(e))
	case xl.Ptr:
		g.xlExpand(xl, e.Pos())
	default:
		g.errorf(e.Pos(), "a translated %s can only be used with operator .", xl.X.Out)
	}
}

// xlExpand builds the whole translated struct of xl in scratch memory and
// leaves its address in R0.
func (g *gen) xlExpand(xl *check.Xlation, pos token.Pos) {
	st := xl.X.Out
	size := roundUp(max(st.Size, 1), 8)
	if size > maxScratch {
		g.errorf(pos, "translated %s of %d bytes does not fit in scratch memory", st, st.Size)
		return
	}
	base := g.temp(size)
	g.zero(base, size)
	unbind, ok := g.xlBind(xl, pos)
	if !ok {
		return
	}
	for _, f := range st.Fields {
		m := xl.X.Members[f.Name]
		if m == nil {
			continue // members the translator does not define are zero
		}
		g.xlStore(f, m, base+f.Offset)
	}
	unbind()
	g.emit(asm.Mov.Reg(asm.R0, rS), asm.Add.Imm(asm.R0, int32(base)))
}

// xlStore stores the value of translator member m into field f at scratch
// offset dst.
func (g *gen) xlStore(f *check.Field, m *ast.TranslatorMember, dst int) {
	t := f.Type
	switch {
	case f.Bits > 0:
		g.errorf(m.NamePos, "translator member %s: bit-fields are not supported", f.Name)
	case t.Kind == check.Int || t.Kind == check.Pointer:
		g.expr(m.Value)
		g.emit(asm.StoreMem(rS, int16(dst), asm.R0, provider.SizeOf(t.Size)))
	case t.Kind == check.String || t.Kind == check.Array && t.Elem.Kind == check.Int && t.Elem.Size == 1:
		g.strIntoAt(m.Value, dst, t.Size)
	default:
		g.errorf(m.NamePos, "translator member %s of type %s is not supported", f.Name, t)
	}
}

// strIntoAt writes the string e into scratch[dst:dst+size], which need not
// be 8-byte aligned.
func (g *gen) strIntoAt(e ast.Expr, dst, size int) {
	if size <= 0 {
		return
	}
	if dst%8 == 0 && size%8 == 0 {
		g.strInto(e, dst, size)
		return
	}
	n := roundUp(size, 8)
	tmp := g.temp(n)
	g.strInto(e, tmp, n)
	g.emit(
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(dst)),
		asm.Mov.Imm(asm.R2, int32(size)),
		asm.Mov.Reg(asm.R3, rS),
		asm.Add.Imm(asm.R3, int32(tmp)),
		asm.FnProbeReadKernel.Call(),
	)
}

// declMemberInt compiles a member of a declared struct or of a
// translation into R0; it reports false for other selectors.
func (g *gen) declMemberInt(x *ast.SelectorExpr) bool {
	if xm := g.info.XMembers[x]; xm != nil {
		t := xm.Field.Type
		if !t.IsScalar() {
			g.errorf(x.SelPos, "member %s of type %s cannot be used as an integer", x.Sel, t)
			return true
		}
		unbind, ok := g.xlBind(xm.Xlation, x.Pos())
		if !ok {
			return true
		}
		g.expr(xm.Value)
		g.normalize(asm.R0, t)
		unbind()
		return true
	}
	f := g.info.Fields[x]
	if f == nil {
		return false
	}
	user := g.lvalAddr(x)
	switch t := f.Type; {
	case f.Bits > 0:
		g.deref(&check.Type{Kind: check.Int, Size: t.Size}, user, x.SelPos)
		g.emit(asm.LSh.Imm(asm.R0, int32(64-f.BitOff-f.Bits)))
		if t.Signed {
			g.emit(asm.ArSh.Imm(asm.R0, int32(64-f.Bits)))
		} else {
			g.emit(asm.RSh.Imm(asm.R0, int32(64-f.Bits)))
		}
	case t.Kind == check.Int || t.Kind == check.Pointer:
		g.deref(t, user, x.SelPos)
	case t.Kind == check.Array || t.Kind == check.Struct:
		// an array stands for its address, as in C
	default:
		g.errorf(x.SelPos, "member %s of type %s cannot be used as an integer", x.Sel, t)
	}
	return true
}

// declStrInto writes a string member of a declared struct or of a
// translation, or a translated string argument, into scratch[off:off+n];
// it reports false for other expressions.
func (g *gen) declStrInto(e ast.Expr, off, n int) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if in := g.info.Inlines[x]; in != nil {
			g.strInto(in.Value, off, n) // a string inline: its value
			return true
		}
	case *ast.SelectorExpr:
		if xm := g.info.XMembers[x]; xm != nil {
			unbind, ok := g.xlBind(xm.Xlation, x.Pos())
			if !ok {
				return true
			}
			g.strInto(xm.Value, off, n)
			unbind()
			return true
		}
		f := g.info.Fields[x]
		if f == nil {
			return false
		}
		limit := f.Type.Size // a string member: its buffer, with the NUL
		if f.Type.Kind == check.Array {
			limit++ // a char array may use all its bytes
		}
		g.zero(off, n)
		user := g.lvalAddr(x)
		g.readStr(off, min(n, limit), user, x.SelPos)
		return true
	case *ast.IndexExpr:
		xl := g.info.Xlates[x]
		if xl == nil || xl.X != nil {
			return false
		}
		// a char * argument declared string: read from user memory
		g.zero(off, n)
		g.loadArg(xl.Arg, xl.InType)
		g.readStr(off, n, true, x.Pos())
		return true
	}
	return false
}

// readStr reads the NUL-terminated string at the address in R0 into
// scratch[off:off+n] (already zeroed), faulting on a bad address.
func (g *gen) readStr(off, n int, user bool, pos token.Pos) {
	fn := asm.FnProbeReadKernelStr
	if user {
		if !g.onlyCurrent(pos, "reading a user string") {
			return
		}
		fn = asm.FnProbeReadUserStr
	}
	g.emit(
		asm.Mov.Reg(regTmp, asm.R0),
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(n)),
		fn.Call(),
	)
	ok := g.label("rs_ok")
	g.emit(asm.JSGE.Imm(asm.R0, 0, ok))
	g.fault(plan.FaultBadAddr, regTmp, pos)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
}

// arrayBase reports whether e is an array in memory (which a subscript
// indexes in place): an array member, also a char array one (a string as
// a value).
func (g *gen) arrayBase(e ast.Expr) bool {
	if g.typeOf(e).Kind == check.Array {
		return true
	}
	if s, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
		if f := g.info.Fields[s]; f != nil && f.Type.Kind == check.Array {
			return true
		}
	}
	return false
}

// lvalAddr computes the address of the memory e designates into R0 and
// reports whether it is user memory: a member of a declared struct, *p,
// p[i] or a[i], or a translated struct (built in scratch memory).
func (g *gen) lvalAddr(e ast.Expr) (user bool) { return g.lvalAddrOf(e, true) }

// lvalAddrOf is lvalAddr; an outermost subscript is bounds-checked
// (bounds.go) only when loaded is set, for &a[i] loads nothing.
func (g *gen) lvalAddrOf(e ast.Expr, loaded bool) (user bool) {
	if g.svarRooted(e) {
		g.svarAddr(e, "") // svar.go: a struct-typed variable's storage
		return false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		f := g.info.Fields[x]
		if f == nil {
			break
		}
		if x.Arrow {
			g.expr(x.X)
			user = g.typeOf(x.X).User
		} else {
			user = g.lvalAddr(x.X)
		}
		g.addFieldOffset(f) // ktype.go
		return user
	case *ast.UnaryExpr:
		if x.Op == token.MUL {
			g.expr(x.X)
			return g.typeOf(x.X).User
		}
	case *ast.IndexExpr:
		if xl := g.info.Xlates[x]; xl != nil {
			if xl.X != nil && !xl.Ptr {
				g.xlExpand(xl, x.Pos())
				return false
			}
			break
		}
		n := -1 // elements, -1 for a pointer
		if g.arrayBase(x.X) {
			n = g.arrayLen(x.X)
			user = g.lvalAddr(x.X)
		} else if bt := g.typeOf(x.X); bt.Kind == check.Pointer {
			g.expr(x.X)
			user = bt.User
		} else {
			break
		}
		s := g.push()
		g.expr(x.Indices[0])
		size := max(g.typeOf(x).Size, 1)
		g.emit(asm.Mov.Reg(asm.R2, asm.R0), asm.Mul.Imm(asm.R0, int32(size)))
		g.pop(asm.R1, s)
		g.emit(asm.Add.Reg(asm.R0, asm.R1))
		if loaded {
			g.checkIndex(n, size, user, x.Pos()) // bounds.go
		}
		return user
	case *ast.XlateExpr:
		if xl := g.info.Xlates[x]; xl != nil && !xl.Ptr {
			g.xlExpand(xl, x.Pos())
			return false
		}
	}
	g.errorf(e.Pos(), "%s is not in memory: it has no address", describeExpr(e))
	return false
}

// inspectDeep is ast.Inspect that also walks, once each, the values of
// the inlines e uses and the member expressions of the translators it
// uses: code compiled in place, whose needs (self-> storage) the clause
// has.
func inspectDeep(info *check.Info, e ast.Expr, f func(ast.Expr) bool) {
	seen := map[ast.Node]bool{}
	var visit func(ast.Expr) bool
	visit = func(x ast.Expr) bool {
		if !f(x) {
			return false
		}
		if id, ok := x.(*ast.Ident); ok {
			if in := info.Inlines[id]; in != nil && !seen[in] {
				seen[in] = true
				ast.Inspect(in.Value, visit)
			}
		}
		if xl := info.Xlates[x]; xl != nil && xl.X != nil && !seen[xl.X.Decl] {
			seen[xl.X.Decl] = true
			for _, m := range xl.X.Decl.Members {
				ast.Inspect(m.Value, visit)
			}
		}
		return true
	}
	ast.Inspect(e, visit)
}
