package check

import (
	"math"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/value"
)

// assign checks an assignment and defines the variable it assigns on first
// use.
func (c *checker) assign(x *ast.AssignExpr) *Type {
	lhs := ast.Unparen(x.X)
	switch l := lhs.(type) {
	case *ast.AggVar:
		c.aggAssign(x, l, nil)
		return nil
	case *ast.IndexExpr:
		if av, ok := ast.Unparen(l.X).(*ast.AggVar); ok {
			c.aggAssign(x, av, l)
			return nil
		}
	}
	if t, ok := c.memberAssign(x); ok {
		return t // svar.go: a member of a struct-typed variable
	}
	if x.Op != token.ASSIGN {
		c.implicitInt(lhs)
	}
	nerr := len(c.errs)
	rt := c.expr(x.Y)
	if x.Op == token.QUO_ASSIGN || x.Op == token.REM_ASSIGN {
		if k, ok := c.info.Consts[ast.Unparen(x.Y)]; ok && !k.IsStr && k.Int == 0 {
			c.errorf(x.OpPos, "D_DIV_ZERO", "expression contains division by zero")
			return nil
		}
	}
	if rt != nil && x.Op != token.ASSIGN && !compoundOK(x.Op, rt) {
		// dt_cook_op2's rules for each compound operator
		switch x.Op {
		case token.ADD_ASSIGN, token.SUB_ASSIGN:
			lt := c.expr(lhs)
			if lt == nil {
				lt = TLong
			}
			if lt.Kind != String && rt.Kind != String && (!lt.IsInt() || isVoidPtr(lt)) {
				c.errorf(x.OpPos, "D_OP_VFPTR", "operator %s requires left-hand scalar operand of known size", x.Op)
				break
			}
			c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" %s \"%s\"", lt, x.Op, rt)
		case token.MUL_ASSIGN, token.QUO_ASSIGN:
			c.errorf(x.OpPos, "D_OP_ARITH", "operator %s requires operands of arithmetic type", x.Op)
		default:
			c.errorf(x.OpPos, "D_OP_INT", "operator %s requires operands of integral type", x.Op)
		}
		return nil
	}
	if rt != nil && (rt.Kind == Void || rt.Kind == Agg) {
		if len(c.errs) == nerr { // not when the value had its own error (D_PROTO_ARG...)
			c.errorf(x.Y.Pos(), "D_OP_VOID", "operator %s requires a value", x.Op)
		}
		return nil
	}
	var v *Var
	switch l := lhs.(type) {
	case *ast.Ident:
		if LookupBuiltinVar(l.Name) != nil {
			c.errorf(l.NamePos, "D_OP_WRITE", "operator %s can only be applied to a writable variable: %s is a read-only built-in variable", x.Op, l.Name)
			return rt
		}
		if _, ok := c.inlines[l.Name]; ok {
			// an inline names a value, not a variable (dt_cook_op2)
			c.errorf(l.NamePos, "D_OP_WRITE", "operator %s can only be applied to a writable variable", x.Op)
			return rt
		}
		v = c.lookupVar(Global, l.Name, l.NamePos, true)
		if v.Assoc {
			c.errorf(l.NamePos, "D_IDENT_BADREF", "associative array '%s' may not be referenced as scalar", l.Name)
			return rt
		}
	case *ast.SelfVar:
		v = c.lookupVar(Self, l.Name, l.NamePos, true)
		if v.Assoc {
			c.errorf(l.NamePos, "D_ARR_BADREF", "self->%s is an associative array and must be subscripted", l.Name)
			return rt
		}
	case *ast.ThisVar:
		v = c.lookupVar(This, l.Name, l.NamePos, true)
	case *ast.IndexExpr:
		if c.arrayElem(l) != nil {
			return c.arrayAssign(x, l, rt) // decl.go
		}
		v = c.assocTarget(l)
		if v == nil {
			return rt
		}
	default:
		c.expr(x.X)
		c.errorf(x.X.Pos(), "D_OP_LVAL", "operator %s requires modifiable lvalue as an operand", x.Op)
		return rt
	}
	c.info.Uses[lhs] = v
	if rt == nil {
		return v.Type
	}
	if x.Op != token.ASSIGN && v.Type == nil && c.final {
		c.errorf(x.X.Pos(), "D_IDENT_UNDEF", "failed to resolve %s%s: unknown variable name", scopePrefix(v.Scope), v.Name)
		return nil
	}
	c.setVarType(x, v, rt)
	c.info.Types[lhs] = v.Type
	return v.Type
}

// assocTarget resolves a[k...] or self->a[k...] on the left of =.
func (c *checker) assocTarget(l *ast.IndexExpr) *Var {
	var v *Var
	switch b := ast.Unparen(l.X).(type) {
	case *ast.Ident:
		if b.Name == "args" || LookupBuiltinVar(b.Name) != nil {
			c.errorf(b.NamePos, "D_OP_WRITE", "operator = can only be applied to a writable variable: %s is a read-only built-in variable", b.Name)
			return nil
		}
		v = c.lookupVar(Global, b.Name, b.NamePos, true)
		c.info.Uses[b] = v
	case *ast.SelfVar:
		v = c.lookupVar(Self, b.Name, b.NamePos, true)
		c.info.Uses[b] = v
	case *ast.ThisVar:
		if v := c.lookupVar(This, b.Name, b.NamePos, false); v == nil || v.Type == nil {
			c.errorf(b.NamePos, "D_ARR_LOCAL", "local variables may not be used as associative arrays: %s", b.Name)
			return nil
		}
		c.expr(l)
		c.errorf(l.Pos(), "D_OP_LVAL", "operator = requires modifiable lvalue as an operand")
		return nil
	case *ast.IndexExpr:
		if av, ok := ast.Unparen(b.X).(*ast.AggVar); ok {
			c.errorf(l.Lbrack, "D_AGG_MDIM", "improper attempt to reference @%s as a multi-dimensional array", av.Name)
			return nil
		}
		c.expr(l)
		c.errorf(l.Pos(), "D_OP_LVAL", "operator = requires modifiable lvalue as an operand")
		return nil
	default:
		c.expr(l)
		c.errorf(l.Pos(), "D_OP_LVAL", "operator = requires modifiable lvalue as an operand")
		return nil
	}
	if v.Type != nil && !v.Assoc {
		c.errorf(l.Lbrack, "D_ARR_BADREF", "%s%s is a scalar and may not be subscripted", scopePrefix(v.Scope), v.Name)
		return nil
	}
	v.Assoc = true
	c.keys(l, v)
	return v
}

// setVarType fixes or reconciles the type of v with an assigned type.
func (c *checker) setVarType(x *ast.AssignExpr, v *Var, t *Type) {
	v.Assigned = true
	if t.Kind == String {
		// A string variable is a strsize buffer of text whatever was
		// assigned first, as in DTrace: probefunc's probe ID would be
		// read by other clauses, whose probes have other IDs.
		if v.Type == nil {
			v.Type = StringType(c.cfg.StrSize)
			return
		}
		if v.Type.Kind != String {
			c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" = \"%s\"", v.Type, t)
		}
		return
	}
	if t.Kind == Struct || (v.Type != nil && v.Type.Kind == Struct) {
		// svar.go: a struct copied whole
		if v.Type == nil {
			if c.structValue(x.Y, t) {
				v.Type = t
				c.checkStructVar(x.X.Pos(), v)
			}
			return
		}
		c.structCopyable(x, v.Type, t)
		return
	}
	if v.Type == nil {
		// the type of the first value, as DTrace: (uint8_t)255 makes a
		// uint8_t that wraps at 256
		v.Type = t
		return
	}
	if v.Type.Kind == String || (v.Type.IsInt() != t.IsInt()) || (v.Type.Kind == Stack) != (t.Kind == Stack) {
		c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" = \"%s\"", v.Type, t)
		return
	}
	if x.Op == token.ASSIGN && v.Type.Kind == Pointer && !c.ptrCompat(v.Type, t, x.X, x.Y) {
		// dt_node_is_argcompat: a pointer variable takes pointers to
		// its type (or void *) and the constant 0
		c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" = \"%s\"", v.Type, t)
		return
	}
	// A wider value widens an undeclared variable (sonde's choice, where
	// DTrace would cut it), but not x op= y: its type is x's.
	if t.Kind == Int && v.Type.Kind == Int && t.Size > v.Type.Size && !v.Declared && x.Op == token.ASSIGN {
		v.Type = t
	}
}

// aggAssign checks @a[keys] = func(args).
func (c *checker) aggAssign(x *ast.AssignExpr, av *ast.AggVar, ix *ast.IndexExpr) {
	v := c.lookupVar(Aggregation, av.Name, av.AtPos, true)
	c.info.Uses[av] = v
	v.Type = TAgg
	if x.Op != token.ASSIGN {
		c.errorf(x.OpPos, "D_AGG_FUNC", "@%s: aggregation may only be assigned with =", av.Name)
		return
	}
	call, ok := ast.Unparen(x.Y).(*ast.CallExpr)
	var b *Builtin
	if ok {
		if id, ok := call.Fun.(*ast.Ident); ok {
			b = LookupBuiltin(id.Name)
		}
	}
	if ok && b == nil {
		c.expr(x.Y) // dt_node_func: an undefined function, D_FUNC_UNDEF
		return
	}
	if b == nil || b.Kind != AggFunc {
		c.errorf(x.Y.Pos(), "D_AGG_FUNC", "@%s must be assigned the result of an aggregating function", av.Name)
		c.expr(x.Y)
		return
	}
	c.info.Calls[call] = b
	if ix != nil {
		var kt []*Type
		for _, i := range ix.Indices {
			t := c.expr(i)
			if t == nil {
				return
			}
			if t.Kind == Void || t.Kind == Agg {
				// dt_idcook_assc
				what := "void"
				if t.Kind == Agg {
					what = "dynamic"
				}
				c.errorf(i.Pos(), "D_KEY_TYPE", "%s expression may not be used as aggregation index: key #%d", what, len(kt)+1)
				return
			}
			kt = append(kt, aggKeyType(t))
		}
		if v.Keys == nil && !v.HasFunc {
			v.Keys = kt
		} else {
			if len(kt) != len(v.Keys) {
				c.keyCountError(ix.Lbrack, v, len(kt))
				return
			}
			c.checkKeys(ix, v, kt)
		}
	} else if v.HasFunc && len(v.Keys) != 0 {
		c.keyCountError(av.AtPos, v, 0)
	}
	if !c.checkArgCount(call, b) {
		return
	}
	for i, a := range call.Args {
		t := c.expr(a)
		if t != nil && !t.IsInt() {
			if i == 0 {
				c.errorf(a.Pos(), "D_AGG_SCALAR", "%s( ) argument #%d must be of scalar type", b.Name, i+1)
			} else {
				// dt_compile_agg: the increment (weight) argument
				c.errorf(a.Pos(), "D_PROTO_ARG", "%s( ) increment value (argument #%d) must be of scalar type", b.Name, i+1)
			}
			return
		}
	}
	params, ok := c.aggParams(call, b)
	if !ok {
		return
	}
	if v.HasFunc {
		switch {
		case v.Func != b.Agg:
			c.errorf(call.Fun.Pos(), "D_AGG_REDEF", "aggregation redefined: @%s\n\t current: @%s = %s( )\n\tprevious: @%s = %s( ) : %s", av.Name, av.Name, b.Name, av.Name, v.Func, v.FuncPos)
		case v.Params != params:
			c.paramsMatch(call, b, v.Params, params)
		}
		return
	}
	v.HasFunc, v.Func, v.Params, v.FuncPos = true, b.Agg, params, call.Fun.Pos()
}

// aggParams evaluates the constant parameters of lquantize and llquantize.
func (c *checker) aggParams(call *ast.CallExpr, b *Builtin) (value.AggParams, bool) {
	var p value.AggParams
	consts := func(from, to int) ([]int64, bool) {
		var out []int64
		for i := from; i < to && i < len(call.Args); i++ {
			n, ok := c.constInt(call.Args[i])
			if !ok {
				c.errorf(call.Args[i].Pos(), "D_"+upper(b.Name)+"_NONCONST", "%s( ) argument #%d must be an integer constant", b.Name, i+1)
				return nil, false
			}
			out = append(out, n)
		}
		return out, true
	}
	switch b.Agg {
	case value.Lquantize:
		// dt_compile_agg's checks, in its order and with its numbering
		// (argument #1 is the base: the one after the value).
		constant := func(i int, tag string) (int64, bool) {
			n, ok := c.constInt(call.Args[i])
			if !ok {
				c.errorf(call.Args[i].Pos(), tag, "lquantize( ) argument #%d must be an integer constant", i)
			}
			return n, ok
		}
		var ok bool
		if p.Base, ok = constant(1, "D_LQUANT_BASETYPE"); !ok {
			return p, false
		}
		if p.Base < math.MinInt32 || p.Base > math.MaxInt32 {
			c.errorf(call.Args[1].Pos(), "D_LQUANT_BASEVAL", "lquantize( ) argument #1 must be a 32-bit quantity")
			return p, false
		}
		if p.Limit, ok = constant(2, "D_LQUANT_LIMTYPE"); !ok {
			return p, false
		}
		if p.Limit < math.MinInt32 || p.Limit > math.MaxInt32 {
			c.errorf(call.Args[2].Pos(), "D_LQUANT_LIMVAL", "lquantize( ) argument #2 must be a 32-bit quantity")
			return p, false
		}
		if p.Limit < p.Base {
			c.errorf(call.Args[2].Pos(), "D_LQUANT_MISMATCH", "lquantize( ) base (argument #1) must be less than limit (argument #2)")
			return p, false
		}
		p.Step = 1
		if len(call.Args) > 3 {
			if p.Step, ok = c.constInt(call.Args[3]); !ok || p.Step <= 0 {
				c.errorf(call.Args[3].Pos(), "D_LQUANT_STEPTYPE", "lquantize( ) argument #3 must be a non-zero positive integer constant")
				return p, false
			}
			if p.Step > math.MaxUint16 {
				c.errorf(call.Args[3].Pos(), "D_LQUANT_STEPVAL", "lquantize( ) argument #3 must be a 16-bit quantity")
				return p, false
			}
		}
		if (p.Limit-p.Base)/p.Step == 0 {
			c.errorf(call.Args[min(3, len(call.Args)-1)].Pos(), "D_LQUANT_STEPLARGE", "lquantize( ) step (argument #3) too large: must have at least one quantization level")
			return p, false
		}
		if (p.Limit-p.Base)/p.Step > 65535 {
			c.errorf(call.Args[2].Pos(), "D_LQUANT_STEPSMALL", "lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity")
			return p, false
		}
	case value.Llquantize:
		v, ok := consts(1, 5)
		if !ok {
			return p, false
		}
		p.Factor, p.Low, p.High, p.Steps = v[0], v[1], v[2], v[3]
		for i, tag := range []string{"D_LLQUANT_FACTORVAL", "D_LLQUANT_LOWVAL", "D_LLQUANT_HIGHVAL", "D_LLQUANT_NSTEPVAL"} {
			if v[i] < 0 || v[i] > math.MaxUint16 {
				c.errorf(call.Args[i+1].Pos(), tag, "llquantize( ) argument #%d must be an unsigned 16-bit quantity", i+2)
				return p, false
			}
		}
		switch {
		case p.Factor < 2:
			c.errorf(call.Args[1].Pos(), "D_LLQUANT_FACTORSMALL", "llquantize( ) factor (argument #2) must be two or more")
			return p, false
		case p.Low >= p.High:
			c.errorf(call.Args[3].Pos(), "D_LLQUANT_MAGRANGE", "llquantize( ) high magnitude (argument #4) must be greater than low magnitude (argument #3)")
			return p, false
		case p.Steps < p.Factor:
			c.errorf(call.Args[4].Pos(), "D_LLQUANT_FACTORNSTEPS", "llquantize( ) factor (argument #2) must be less than or equal to the number of linear steps per magnitude (argument #5)")
			return p, false
		case p.Steps%p.Factor != 0 || !dividesPower(p.Steps, p.Factor):
			c.errorf(call.Args[4].Pos(), "D_LLQUANT_FACTOREVEN", "llquantize( ) factor (argument #2) must evenly divide the number of steps per magnitude (argument #5), and the number of steps per magnitude must evenly divide a power of the factor")
			return p, false
		}
		pow := int64(1)
		for i := int64(0); i <= p.High+1; i++ {
			if pow > math.MaxInt64/p.Factor {
				c.errorf(call.Args[3].Pos(), "D_LLQUANT_MAGTOOBIG", "llquantize( ) factor (%d) raised to power of high magnitude (%d) plus 1 overflows 64-bits", p.Factor, p.High)
				return p, false
			}
			pow *= p.Factor
		}
	}
	return p, true
}

// dividesPower reports whether n divides a power of factor (2 or more;
// both at most 16 bits).
func dividesPower(n, factor int64) bool {
	pow := factor
	for pow < n {
		pow *= factor
	}
	return pow%n == 0
}

func upper(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	switch string(b) {
	case "LQUANTIZE":
		return "LQUANT"
	case "LLQUANTIZE":
		return "LLQUANT"
	}
	return string(b)
}

// aggKeyType is the type a value takes as an aggregation key: integers
// keep their size, which decides how DTrace prints them (dt_print_datum:
// %3d, %5d, %8d or %16lld).
func aggKeyType(t *Type) *Type {
	if t.Kind == Int {
		return t
	}
	return keyType(t)
}

// keyName is how dt_idcook_sign names an array or aggregation: "@a[ ]".
func keyName(v *Var) string {
	p := scopePrefix(v.Scope)
	return p + v.Name + "[ ]"
}

// keyCountError is dt_idcook_sign's D_PROTO_LEN for a key tuple of n keys
// where the first use had another number.
func (c *checker) keyCountError(pos token.Pos, v *Var, n int) {
	s := "s "
	if n == 1 {
		s = " "
	}
	c.errorf(pos, "D_PROTO_LEN", "%s prototype mismatch: %d key%spassed, %d expected", keyName(v), n, s, len(v.Keys))
}

// keyTypeError is dt_idcook_sign's D_PROTO_ARG for key i of type t.
func (c *checker) keyTypeError(pos token.Pos, v *Var, i int, t *Type) {
	c.errorf(pos, "D_PROTO_ARG", "%s key #%d is incompatible with prototype:\n\tprototype: %s\n\t%9s: %s", keyName(v), i+1, v.Keys[i], "key", t)
}

// compoundOK reports whether a right-hand side of type t suits the
// compound assignment op: integers for the bitwise operators, shifts and
// %, integers (or pointers) for the others.
func compoundOK(op token.Kind, t *Type) bool {
	switch op {
	case token.AND_ASSIGN, token.OR_ASSIGN, token.XOR_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN, token.REM_ASSIGN:
		return t.Kind == Int
	}
	return t.IsInt()
}

// paramsMatch reports how the parameters of another lquantize() or
// llquantize() of an aggregation differ from its first one, as
// dt_compile_agg does: lquantize's base, then its limit (as the levels
// reach it), then its step; llquantize's parameters in order.
func (c *checker) paramsMatch(call *ast.CallExpr, b *Builtin, old, cur value.AggParams) {
	pos := call.Fun.Pos()
	if b.Agg == value.Lquantize {
		on, n := (old.Limit-old.Base)/max(old.Step, 1), (cur.Limit-cur.Base)/max(cur.Step, 1)
		switch {
		case old.Base != cur.Base:
			c.errorf(pos, "D_LQUANT_MATCHBASE", "lquantize( ) base (argument #1) doesn't match previous declaration: expected %d, found %d", old.Base, cur.Base)
		case on*old.Step != n*cur.Step:
			c.errorf(pos, "D_LQUANT_MATCHLIM", "lquantize( ) limit (argument #2) doesn't match previous declaration: expected %d, found %d", old.Base+on*old.Step, cur.Base+n*cur.Step)
		case old.Step != cur.Step:
			c.errorf(pos, "D_LQUANT_MATCHSTEP", "lquantize( ) step (argument #3) doesn't match previous declaration: expected %d, found %d", old.Step, cur.Step)
		}
		return // the same levels: DTrace takes them as the first ones
	}
	if b.Agg == value.Llquantize {
		for i, p := range []struct {
			tag, name string
			o, n      int64
		}{
			{"D_LLQUANT_FACTORMATCH", "factor", old.Factor, cur.Factor},
			{"D_LLQUANT_LOWMATCH", "low magnitude", old.Low, cur.Low},
			{"D_LLQUANT_HIGHMATCH", "high magnitude", old.High, cur.High},
			{"D_LLQUANT_NSTEPMATCH", "linear steps per magnitude", old.Steps, cur.Steps},
		} {
			if p.o != p.n {
				c.errorf(pos, p.tag, "llquantize( ) %s (argument #%d) doesn't match previous declaration: expected %d, found %d", p.name, i+1, p.o, p.n)
				return
			}
		}
	}
}
