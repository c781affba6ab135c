package check

// svar.go gives meaning to D variables of struct and union type (the
// Dynamic Tracing Guide's "Structs": "the new struct type can be used as
// the type for D variables and arrays"): globals, self-> and this->
// variables, and associative arrays whose values are structs. Such a
// variable is storage of its own: its members are read and assigned
// (st.a = 0x1234, i[probefunc].calls++, self->s.name = execname), bit-fields
// included, and the whole value is copied by assignment from another
// such value, from memory (*p, p->m), or from a translation.

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// MaxStructVar is the largest struct or union a D variable may hold, in
// bytes: its value is copied through clause scratch memory.
const MaxStructVar = 8 << 10

// IsStructVal reports whether t is a struct or union a D variable may
// hold by value: a declared or kernel one, not a provider's argument
// structure (read in place from the probe context).
func IsStructVal(t *Type) bool { return t != nil && t.Kind == Struct && t.Src == nil }

// SvarRoot returns the D variable of struct type in whose storage e lies
// (st, self->st, this->st, a[k] of a struct-valued array, a member of
// one, an element of an array member of one), or nil. info must hold
// the types and uses of e, as after checking.
func SvarRoot(info *Info, e ast.Expr) *Var {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.SelfVar, *ast.ThisVar:
		if v := info.Uses[x]; v != nil && !v.Assoc && IsStructVal(v.Type) {
			return v
		}
	case *ast.IndexExpr:
		switch b := ast.Unparen(x.X).(type) {
		case *ast.Ident, *ast.SelfVar:
			if v := info.Uses[b]; v != nil && v.Assoc && IsStructVal(v.Type) {
				return v
			}
			return nil
		case *ast.SelectorExpr:
			if f := info.Fields[b]; f != nil && f.Type.Kind == Array {
				return SvarRoot(info, b)
			}
		case *ast.IndexExpr:
			if t := info.Types[b]; t != nil && t.Kind == Array {
				return SvarRoot(info, b)
			}
		}
	case *ast.SelectorExpr:
		if !x.Arrow && info.Fields[x] != nil {
			return SvarRoot(info, x.X)
		}
	}
	return nil
}

// svarRooted reports whether e lies in a struct-typed D variable.
func (c *checker) svarRooted(e ast.Expr) bool { return SvarRoot(c.info, e) != nil }

// isMemberLval reports whether e is written as a member or an element of
// an array member (s.m, s.a[i], p->m): the forms memberAssign checks.
func isMemberLval(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return true
	case *ast.IndexExpr:
		switch ast.Unparen(x.X).(type) {
		case *ast.SelectorExpr, *ast.IndexExpr:
			return true
		}
	}
	return false
}

// memberAssign checks an assignment to a member of a struct-typed
// variable (or to an element of an array member of one); it reports false
// when the left side is not written as a member, which assign handles.
func (c *checker) memberAssign(x *ast.AssignExpr) (*Type, bool) {
	lhs := ast.Unparen(x.X)
	if !isMemberLval(lhs) && !isDeref(lhs) && !c.isPtrIndex(lhs) {
		return nil, false
	}
	if ix, ok := lhs.(*ast.IndexExpr); ok {
		if inner, ok := ast.Unparen(ix.X).(*ast.IndexExpr); ok {
			if c.arrayElem(ix) != nil {
				return nil, false // a[i][j] of an array variable (decl.go)
			}
			if _, ok := ast.Unparen(inner.X).(*ast.AggVar); ok {
				return nil, false // @a[i][j], reported by assign
			}
		}
	}
	lt := c.expr(lhs)
	rt := c.expr(x.Y)
	if lt == nil || rt == nil {
		return nil, true
	}
	if !c.svarRooted(lhs) {
		if c.scratchLval(lhs) && lt.IsInt() {
			// memory a kernel pointer points to: scratch memory
			// (alloca(), copyin()) is written, anything else faults
			// when the code runs, as DTrace's dtrace_canstore refuses it
			if !rt.IsInt() {
				c.incompat(x, lt, rt)
				return nil, true
			}
			return lt, true
		}
		c.errorf(x.OpPos, "D_OP_LVAL", "operator %s requires modifiable lvalue as an operand", x.Op)
		return nil, true
	}
	if rt.Kind == Void || rt.Kind == Agg {
		c.errorf(x.Y.Pos(), "D_OP_VOID", "operator %s requires a value", x.Op)
		return nil, true
	}
	if x.Op != token.ASSIGN && (!lt.IsInt() || !rt.IsInt()) {
		c.errorf(x.OpPos, "D_OP_ARITH", "operator %s requires operands of arithmetic type", x.Op)
		return nil, true
	}
	switch {
	case lt.IsInt():
		if !rt.IsInt() {
			c.incompat(x, lt, rt)
			return nil, true
		}
	case lt.Kind == String:
		if rt.Kind != String {
			c.incompat(x, lt, rt)
			return nil, true
		}
	case lt.Kind == Struct:
		if !c.structCopyable(x, lt, rt) {
			return nil, true
		}
	case lt.Kind == Array:
		c.errorf(x.OpPos, "D_OP_ARRFUN", "operator %s may not be applied to an array: assign its elements", x.Op)
		return nil, true
	default:
		c.incompat(x, lt, rt)
		return nil, true
	}
	return lt, true
}

func (c *checker) incompat(x *ast.AssignExpr, lt, rt *Type) {
	c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" %s \"%s\"", lt, x.Op, rt)
}

// structCopyable checks that a value of type rt may be copied whole into
// storage of struct type lt.
func (c *checker) structCopyable(x *ast.AssignExpr, lt, rt *Type) bool {
	if x.Op != token.ASSIGN {
		c.errorf(x.OpPos, "D_OP_ARITH", "operator %s requires operands of arithmetic type", x.Op)
		return false
	}
	if rt.Kind != Struct || !sameType(lt, rt) {
		c.incompat(x, lt, rt)
		return false
	}
	return c.structValue(x.Y, rt)
}

// structValue checks that e, of struct type t, is a value sonde can copy:
// a struct-typed variable or a member of one, memory (*p, p->m, s.m), or
// a translation.
func (c *checker) structValue(e ast.Expr, t *Type) bool {
	if !IsStructVal(t) {
		c.errorf(e.Pos(), "D_OP_INCOMPAT", "a %s of the probe's arguments cannot be copied: assign its members", t)
		return false
	}
	if t.Size > MaxStructVar {
		c.errorf(e.Pos(), "D_OP_INCOMPAT", "%s takes %d bytes: sonde copies structs of up to %d bytes", t, t.Size, MaxStructVar)
		return false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.SelfVar, *ast.ThisVar:
		if c.info.Inlines[asIdent(x)] == nil {
			return true
		}
	case *ast.UnaryExpr:
		if x.Op == token.MUL {
			return true
		}
	case *ast.SelectorExpr:
		if c.info.Fields[x] != nil || c.info.XMembers[x] == nil {
			return true
		}
	case *ast.IndexExpr, *ast.XlateExpr:
		return true
	}
	c.errorf(e.Pos(), "D_OP_INCOMPAT", "this %s value cannot be copied: assign a variable, memory or a translation", t)
	return false
}

func asIdent(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

// isDeref reports whether e is *p.
func isDeref(e ast.Expr) bool {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.MUL
}

// isPtrIndex reports whether e is p[i] for a pointer variable p (not an
// associative array, nor an array variable).
func (c *checker) isPtrIndex(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	var v *Var
	switch b := ast.Unparen(ix.X).(type) {
	case *ast.ThisVar:
		v = c.lookupVar(This, b.Name, b.NamePos, false)
	case *ast.SelfVar:
		v = c.lookupVar(Self, b.Name, b.NamePos, false)
	case *ast.Ident:
		if LookupBuiltinVar(b.Name) != nil || c.inlines[b.Name] != nil {
			return false
		}
		v = c.lookupVar(Global, b.Name, b.NamePos, false)
	default:
		return false
	}
	return v != nil && !v.Assoc && v.Type != nil && v.Type.Kind == Pointer
}

// scratchLval reports whether e (checked) is memory a kernel pointer
// points to: *p, p->m, p[i], or a member of one.
func (c *checker) scratchLval(e ast.Expr) bool {
	kptr := func(x ast.Expr) bool {
		t := c.info.Types[x]
		return t != nil && t.Kind == Pointer && !t.User
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		return x.Op == token.MUL && kptr(x.X)
	case *ast.SelectorExpr:
		if c.info.Fields[x] == nil {
			return false
		}
		if x.Arrow {
			return kptr(x.X)
		}
		return c.scratchLval(x.X)
	case *ast.IndexExpr:
		if kptr(x.X) {
			return true
		}
		if s, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && c.info.Fields[s] != nil && c.info.Fields[s].Type.Kind == Array {
			return c.scratchLval(s)
		}
	}
	return false
}

// memberLvalue checks, after e was checked, that e (a member or an
// element of an array member, the operand of ++ or --) is in a
// struct-typed variable, the only memory D assigns.
func (c *checker) memberLvalue(e ast.Expr, op token.Kind) {
	if (isDeref(e) || c.isPtrIndex(e)) && !c.scratchLval(e) {
		c.errorf(e.Pos(), "D_OP_LVAL", "operator %s requires modifiable lvalue as an operand", op)
		return
	}
	if isMemberLval(e) && !c.svarRooted(e) && c.arrayElem(e) == nil && !c.scratchLval(e) {
		c.errorf(e.Pos(), "D_OP_LVAL", "operator %s requires modifiable lvalue as an operand", op)
	}
}

// checkStructVar checks the type a variable takes on: a struct or union
// it can hold by value.
func (c *checker) checkStructVar(pos token.Pos, v *Var) bool {
	if v.Type == nil || v.Type.Kind != Struct {
		return true
	}
	if !IsStructVal(v.Type) || !c.complete(v.Type) {
		return true // reported where the type is used
	}
	if v.Type.Size > MaxStructVar {
		c.declErr(pos, "D_DECL_DYNOBJ", "%s%s: %s takes %d bytes: sonde's variables hold structs of up to %d bytes", scopePrefix(v.Scope), v.Name, v.Type, v.Type.Size, MaxStructVar)
		return false
	}
	return true
}
