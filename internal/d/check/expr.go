package check

import (
	"reflect"
	"strconv"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/probe"
)

// expr type-checks e and returns its type (nil when unknown: an error has
// been or will be reported, or, in pass 1, a variable is not yet typed).
func (c *checker) expr(e ast.Expr) *Type {
	t := c.expr1(e)
	if t != nil {
		c.info.Types[e] = t
	}
	return t
}

func (c *checker) expr1(e ast.Expr) *Type {
	switch x := e.(type) {
	case *ast.BadExpr:
		return nil
	case *ast.IntLit:
		return c.intLit(x)
	case *ast.StringLit:
		c.info.Consts[x] = Const{IsStr: true, Str: x.Value}
		return StringType(len(x.Value) + 1)
	case *ast.MacroVar:
		return c.macroVar(x)
	case *ast.Ident:
		return c.ident(x)
	case *ast.ParenExpr:
		t := c.expr(x.X)
		if k, ok := c.info.Consts[x.X]; ok {
			c.info.Consts[x] = k
		}
		return t
	case *ast.SelfVar:
		return c.varRef(x, Self, x.Name, x.NamePos)
	case *ast.ThisVar:
		return c.varRef(x, This, x.Name, x.NamePos)
	case *ast.AggVar:
		c.errorf(x.AtPos, "D_AGG_SCALAR", "aggregation @%s may not be used as a scalar", x.Name)
		return nil
	case *ast.UnaryExpr:
		return c.unary(x)
	case *ast.PostfixExpr:
		c.lvalue(x.X, x.Op)
		c.implicitInt(x.X)
		t := c.expr(x.X)
		c.memberLvalue(x.X, x.Op) // svar.go
		if t != nil && !t.IsInt() {
			c.errorf(x.OpPos, "D_OP_SCALAR", "operator %s requires an operand of scalar type", x.Op)
			return nil
		}
		if isVoidPtr(t) {
			c.errorf(x.OpPos, "D_OP_VFPTR", "operator %s requires an operand of known size", x.Op)
			return nil
		}
		return t
	case *ast.BinaryExpr:
		return c.binary(x)
	case *ast.AssignExpr:
		return c.assign(x)
	case *ast.CondExpr:
		return c.cond(x)
	case *ast.CallExpr:
		return c.call(x, false)
	case *ast.IndexExpr:
		return c.index(x)
	case *ast.SelectorExpr:
		return c.selector(x)
	case *ast.CastExpr:
		return c.cast(x)
	case *ast.SizeofExpr:
		return c.sizeof(x)
	case *ast.StringofExpr:
		t := c.expr(x.X)
		if t != nil && t.Kind == String {
			return t
		}
		if t != nil && !t.IsInt() && !isCharArray(t) {
			// dt_cook_op1: scalars, pointers and strings only
			c.errorf(x.Pos(), "D_STRINGOF_TYPE", "cannot apply stringof to a value of type %s", t)
			return nil
		}
		return StringType(c.cfg.StrSize)
	case *ast.OffsetofExpr:
		return c.offsetof(x) // decl.go
	case *ast.XlateExpr:
		return c.xlate(x) // decl.go
	}
	return nil
}

func arrow(a bool) string {
	if a {
		return "->"
	}
	return "."
}

func (c *checker) intLit(x *ast.IntLit) *Type {
	c.info.Consts[x] = Const{Int: int64(x.Value)}
	v := x.Value
	switch {
	case x.IsChar:
		return TInt
	case x.Long == 0 && !x.Unsigned && v <= 0x7fffffff:
		return TInt
	case x.Long == 0 && v <= 0xffffffff && (x.Unsigned || isOctHex(x.Raw)):
		return TUint
	case !x.Unsigned && v <= 0x7fffffffffffffff:
		return TLong
	}
	return TUlong
}

func isOctHex(raw string) bool { return len(raw) > 1 && raw[0] == '0' }

func (c *checker) macroVar(x *ast.MacroVar) *Type {
	v, ok := c.cfg.Macros[x.Name]
	if _, err := strconv.Atoi(x.Name); !ok && err == nil && c.cfg.DefaultArgs {
		// defaultargs: an argument not given is 0, or "" as $$N
		if x.Quoted {
			c.info.Consts[x] = Const{IsStr: true}
			return StringType(1)
		}
		c.info.Consts[x] = Const{Int: 0}
		return TInt
	}
	if !ok {
		// dt_lex.l: $1 is a macro argument, $name a macro variable
		kind := "variable"
		if _, err := strconv.Atoi(x.Name); err == nil {
			kind = "argument"
		}
		c.errorf(x.DollarPos, "D_MACRO_UNDEF", "macro %s $%s is not defined", kind, x.Name)
		return nil
	}
	if !x.Quoted {
		if n, err := strconv.ParseInt(v, 0, 64); err == nil {
			c.info.Consts[x] = Const{Int: n}
			if n >= -1<<31 && n < 1<<31 {
				return TInt
			}
			return TLong
		}
	}
	c.info.Consts[x] = Const{IsStr: true, Str: v}
	return StringType(len(v) + 1)
}

func (c *checker) ident(x *ast.Ident) *Type {
	if t, ok := c.xlParam(x); ok {
		return t // a translator's parameter (decl.go)
	}
	if bv := LookupBuiltinVar(x.Name); bv != nil {
		if bv.ID == BArgs {
			c.errorf(x.NamePos, "D_IDENT_BADREF", "associative array 'args' may not be referenced as scalar")
			return nil
		}
		if bv.ID == BUregs {
			c.errorf(x.NamePos, "D_UREGS_IDX", "uregs[ ] must be subscripted with a register name such as R_PC")
			return nil
		}
		c.info.Builtins[x] = bv
		if bv.ID == BCurthread {
			return c.curthreadType(bv.Type) // ktypes.go
		}
		return bv.Type
	}
	if in, ok := c.inlines[x.Name]; ok {
		if d := c.defining; d != nil && d != in && d.InlinePos.File == in.InlinePos.File && d.InlinePos.Offset < in.InlinePos.Offset {
			// dt_node_inline: an inline's value is compiled where it is
			// declared, before any later declaration
			c.errorf(x.NamePos, "D_IDENT_UNDEF", "failed to resolve %s: unknown variable name", x.Name)
			return nil
		}
		c.info.Inlines[x] = in
		if c.inlining[in] {
			c.errorf(x.NamePos, "D_IDENT_UNDEF", "failed to resolve %s: inline %s is defined in terms of itself", x.Name, in.Name)
			return nil
		}
		t := c.inlineValue(in) // decl.go
		if in.Type != nil {
			t = c.resolveType(in.Type)
		}
		if k, ok := c.info.Consts[in.Value]; ok {
			c.info.Consts[x] = k
		} else if v, ok := c.constInt(in.Value); ok {
			c.info.Consts[x] = Const{Int: v}
		}
		if k, ok := c.info.Consts[x]; ok && !k.IsStr && t != nil && t.Kind == Int {
			// inline char c = 300: a constant of the inline's type
			c.info.Consts[x] = Const{Int: truncate(k.Int, t)}
		}
		return t
	}
	if k, ok := predefined[x.Name]; ok && c.lookupVar(Global, x.Name, x.NamePos, false) == nil {
		c.info.Consts[x] = Const{Int: k}
		return predefinedType(x.Name)
	}
	if v := c.lookupVar(Global, x.Name, x.NamePos, false); v != nil {
		if v.Assoc {
			// dt_xcook_ident: the identifier is not of the kind its use asks
			c.errorf(x.NamePos, "D_IDENT_BADREF", "associative array '%s' may not be referenced as scalar", x.Name)
			return nil
		}
		if isArrayVar(v) {
			c.errorf(x.NamePos, "D_OP_ARRFUN", "%s is an array: sonde reads and writes its elements only (%s[i])", x.Name, x.Name)
			return nil
		}
		if !c.definedYet(v, x.NamePos) { // order.go
			return nil
		}
		c.info.Uses[x] = v
		return v.Type
	}
	if b := LookupBuiltin(x.Name); b != nil {
		kind := "function"
		switch b.Kind {
		case Action:
			kind = "tracing function"
		case AggFunc:
			kind = "aggregating function"
		}
		c.errorf(x.NamePos, "D_IDENT_BADREF", "%s '%s' may not be referenced as scalar", kind, x.Name)
		return nil
	}
	c.errorf(x.NamePos, "D_IDENT_UNDEF", "failed to resolve %s: unknown variable name", x.Name)
	return nil
}

func (c *checker) varRef(x ast.Expr, s VarScope, name string, pos token.Pos) *Type {
	v := c.lookupVar(s, name, pos, false)
	if v == nil || v.Type == nil {
		if s == Self || s == This {
			// dt_cook_var: self-> and this-> create the variable; reading
			// it before any assignment is the error
			c.errorf(pos, "D_VAR_UNDEF", "%s%s has not yet been declared or assigned", scopePrefix(s), name)
			return nil
		}
		c.errorf(pos, "D_IDENT_UNDEF", "failed to resolve %s%s: unknown variable name", scopePrefix(s), name)
		return nil
	}
	if v.Assoc {
		c.errorf(pos, "D_ARR_BADREF", "%s%s is an associative array and must be subscripted", scopePrefix(s), name)
		return nil
	}
	if !c.definedYet(v, pos) { // order.go
		return nil
	}
	c.info.Uses[x] = v
	return v.Type
}

func (c *checker) unary(x *ast.UnaryExpr) *Type {
	if x.Op == token.INC || x.Op == token.DEC {
		c.implicitInt(x.X)
	}
	t := c.expr(x.X)
	if t == nil {
		return nil
	}
	if v, ok := c.constInt(x); ok {
		c.info.Consts[x] = Const{Int: v}
	}
	switch x.Op {
	case token.NOT:
		if !t.IsInt() {
			c.errorf(x.OpPos, "D_OP_SCALAR", "operator ! requires an operand of scalar type")
		}
		return TInt
	case token.TILDE:
		if t.Kind != Int {
			c.errorf(x.OpPos, "D_OP_INT", "operator %s requires an operand of integral type", x.Op)
			return nil
		}
		return promote(t)
	case token.SUB, token.ADD:
		if t.Kind != Int {
			c.errorf(x.OpPos, "D_OP_ARITH", "operator %s requires an operand of arithmetic type", x.Op)
			return nil
		}
		return promote(t)
	case token.INC, token.DEC:
		c.lvalue(x.X, x.Op)
		c.memberLvalue(x.X, x.Op) // svar.go
		if !t.IsInt() {
			c.errorf(x.OpPos, "D_OP_SCALAR", "operator %s requires an operand of scalar type", x.Op)
			return nil
		}
		if isVoidPtr(t) {
			c.errorf(x.OpPos, "D_OP_VFPTR", "operator %s requires an operand of known size", x.Op)
			return nil
		}
		return t
	case token.MUL:
		if t.Kind != Pointer {
			c.errorf(x.OpPos, "D_DEREF_NONPTR", "cannot dereference non-pointer type")
			return nil
		}
		if t.Elem.Kind == Void {
			c.errorf(x.OpPos, "D_DEREF_VOID", "cannot dereference pointer to void")
			return nil
		}
		return t.Elem
	case token.AND:
		return c.addrOf(x, t) // decl.go
	}
	return nil
}

// promote applies the integer promotions.
func promote(t *Type) *Type {
	if t.Kind == Int && t.Size < 4 {
		return TInt
	}
	return t
}

// arith is the usual arithmetic conversion of a and b.
func arith(a, b *Type) *Type {
	a, b = promote(a), promote(b)
	if a.Kind == Pointer {
		return a
	}
	if b.Kind == Pointer {
		return b
	}
	if a.Size > b.Size {
		return a
	}
	if b.Size > a.Size {
		return b
	}
	if !a.Signed {
		return a
	}
	return b
}

func (c *checker) binary(x *ast.BinaryExpr) *Type {
	if x.Op == token.COMMA {
		// dt_cook_op2: before the operands' own errors
		switch {
		case isDynamic(x.X) || isDynamic(x.Y):
			c.errorf(x.X.Pos(), "D_OP_DYN", "operator , operands cannot be of dynamic type")
			return nil
		case isAction(x.X) || isAction(x.Y):
			c.errorf(x.X.Pos(), "D_OP_ACT", "operator , operands cannot be actions")
			return nil
		}
	}
	a, b := c.expr(x.X), c.expr(x.Y)
	if a == nil || b == nil {
		return nil
	}
	if v, ok := c.foldTyped(x, a, b); ok {
		c.info.Consts[x] = Const{Int: v}
	}
	if x.Op == token.QUO || x.Op == token.REM {
		if k, ok := c.info.Consts[ast.Unparen(x.Y)]; ok && !k.IsStr && k.Int == 0 {
			c.errorf(x.OpPos, "D_DIV_ZERO", "expression contains division by zero")
			return nil
		}
	}
	switch x.Op {
	case token.COMMA:
		return b
	case token.LAND, token.LOR, token.LXOR:
		if !scalarish(a) || !scalarish(b) {
			c.errorf(x.OpPos, "D_OP_SCALAR", "operator %s requires operands of scalar type", x.Op)
		}
		return TInt
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		if (a.Kind == String) != (b.Kind == String) && !IsCharPtr(a) && !IsCharPtr(b) {
			// (a char * compared with a string is compared as the string it points to)
			c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" %s \"%s\"", a, x.Op, b)
			return TInt
		}
		if a.Kind != String && b.Kind != String && (!a.IsInt() || !b.IsInt()) {
			c.errorf(x.OpPos, "D_OP_SCALAR", "operator %s requires operands of scalar type", x.Op)
			return TInt
		}
		if (a.Kind == Pointer || b.Kind == Pointer) && a.Kind != String && b.Kind != String && !c.ptrCompat(a, b, x.X, x.Y) {
			c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" %s \"%s\"", a, x.Op, b)
		}
		return TInt
	}
	switch x.Op {
	case token.AND, token.OR, token.XOR, token.SHL, token.SHR, token.REM:
		// dt_cook_op2: bitwise operators and % want integers
		if a.Kind != Int || b.Kind != Int {
			c.errorf(x.OpPos, "D_OP_INT", "operator %s requires operands of integral type", x.Op)
			return nil
		}
	}
	switch {
	case x.Op == token.ADD && a.Kind == Pointer && b.Kind == Pointer,
		x.Op == token.SUB && a.Kind == Int && b.Kind == Pointer,
		x.Op == token.SUB && a.Kind == Pointer && b.Kind == Pointer && !c.ptrCompat(a, b, x.X, x.Y):
		// dt_cook_op2: pointer + integer, pointer - pointer of one type
		c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" %s \"%s\"", a, x.Op, b)
		return nil
	case (x.Op == token.MUL || x.Op == token.QUO) && (a.Kind == Pointer || b.Kind == Pointer):
		c.errorf(x.OpPos, "D_OP_ARITH", "operator %s requires operands of arithmetic type", x.Op)
		return nil
	}
	if !a.IsInt() || !b.IsInt() {
		if x.Op == token.ADD || x.Op == token.SUB {
			// dt_cook_op2: + and - take integers and pointers
			c.errorf(x.OpPos, "D_OP_INCOMPAT", "operands have incompatible types: \"%s\" %s \"%s\"", a, x.Op, b)
			return nil
		}
		c.errorf(x.OpPos, "D_OP_ARITH", "operator %s requires operands of arithmetic type", x.Op)
		return nil
	}
	if x.Op == token.SHL || x.Op == token.SHR {
		return promote(a)
	}
	if x.Op == token.SUB && a.Kind == Pointer && b.Kind == Pointer {
		return TLong
	}
	return arith(a, b)
}

// scalarish is dt_node_is_scalar: an integer or a pointer (D's string is
// an array of char, not a scalar).
func scalarish(t *Type) bool { return t.IsInt() }

func (c *checker) cond(x *ast.CondExpr) *Type {
	// dt_cook_op3: before the operands' own errors
	switch {
	case isDynamic(x.X) || isDynamic(x.Y):
		c.errorf(x.Cond.Pos(), "D_OP_DYN", "operator ?: operands cannot be of dynamic type")
		return nil
	case isAction(x.X) || isAction(x.Y):
		c.errorf(x.Cond.Pos(), "D_OP_ACT", "action cannot be used in a conditional context")
		return nil
	}
	ct := c.expr(x.Cond)
	a, b := c.expr(x.X), c.expr(x.Y)
	if ct != nil && !scalarish(ct) {
		c.errorf(x.Cond.Pos(), "D_OP_SCALAR", "operator ?: requires a scalar first operand")
	}
	if a == nil || b == nil {
		return nil
	}
	if a.Kind == String && b.Kind == String {
		if a.Repr != b.Repr {
			// probeprov and the like are probe IDs until printed: mixed
			// with another string, the result is a buffer
			return StringType(max(a.Size, b.Size))
		}
		if a.Size >= b.Size {
			return a
		}
		return b
	}
	if a.IsInt() && b.IsInt() {
		return arith(a, b)
	}
	c.errorf(x.Quest, "D_OP_INCOMPAT", "operator ?: operands must have compatible types")
	return nil
}

func (c *checker) cast(x *ast.CastExpr) *Type {
	t := c.expr(x.X)
	to := c.resolveType(x.Type)
	if v, ok := c.constInt(x.X); ok && to.Kind == Int {
		c.info.Consts[x] = Const{Int: truncate(v, to)}
	}
	if t == nil {
		return to
	}
	if to.Kind == String {
		c.errorf(x.Lparen, "D_CAST_INVAL", "invalid cast expression: \"%s\" to \"string\" (use stringof)", t)
		return nil
	}
	if to.Kind != Int && to.Kind != Pointer && to.Kind != Void {
		// dt_cook_op2: a cast is to a scalar type
		c.errorf(x.Lparen, "D_CAST_INVAL", "invalid cast expression: \"%s\" to \"%s\"", t, to)
		return nil
	}
	if !t.IsInt() && to.IsInt() {
		c.errorf(x.Lparen, "D_CAST_INVAL", "invalid cast expression: \"%s\" to \"%s\"", t, to)
		return nil
	}
	return to
}

// truncate converts v as a cast to integer type t does.
func truncate(v int64, t *Type) int64 {
	switch t.Size {
	case 1:
		if t.Signed {
			return int64(int8(v))
		}
		return int64(uint8(v))
	case 2:
		if t.Signed {
			return int64(int16(v))
		}
		return int64(uint16(v))
	case 4:
		if t.Signed {
			return int64(int32(v))
		}
		return int64(uint32(v))
	}
	return v
}

func (c *checker) sizeof(x *ast.SizeofExpr) *Type {
	size := &Type{Kind: Int, Size: 8, Name: "size_t"}
	var t *Type
	switch {
	case x.Type != nil:
		if !c.knownTypeName(x.Type) {
			c.resolveType(x.Type) // reports the unknown name
			return size
		}
		t = c.resolveType(x.Type)
	case c.arrayVarOf(x.X) != nil:
		t = c.arrayVarOf(x.X).Type // decl.go: a declared array variable
		c.info.Uses[ast.Unparen(x.X)] = c.arrayVarOf(x.X)
	default:
		t = c.expr(x.X)
	}
	if t == nil {
		return size
	}
	if s, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && c.info.Fields[s] != nil && c.info.Fields[s].Bits > 0 {
		c.errorf(x.SizeofPos, "D_SIZEOF_BITFIELD", "cannot apply sizeof to a bit-field")
		return size
	}
	c.complete(t) // ktypes.go: a kernel struct
	sz := t.Size
	if t.Kind == Pointer {
		sz = 8
	}
	if at := c.charArrayMember(x.X); at != nil {
		sz = at.Size // decl.go: a char array member, not the string it reads as
	}
	if sz <= 0 || isIncomplete(t) || t.Kind == Void || t.Kind == Agg {
		// dt_node_op1: void, a forward declaration, an unsized value
		c.errorf(x.SizeofPos, "D_SIZEOF_TYPE", "cannot apply sizeof to an operand of unknown size")
		return size
	}
	c.info.Consts[x] = Const{Int: int64(sz)}
	return size
}

func (c *checker) index(x *ast.IndexExpr) *Type {
	switch b := ast.Unparen(x.X).(type) {
	case *ast.Ident:
		if b.Name == "args" && LookupBuiltinVar("args") != nil && c.lookupVar(Global, "args", b.NamePos, false) == nil {
			return c.argsIndex(x, b)
		}
		if c.isFds(b) {
			return c.fdsIndex(x) // fds.go
		}
		if b.Name == "uregs" && c.lookupVar(Global, "uregs", b.NamePos, false) == nil {
			return c.uregsIndex(x, b) // regs.go
		}
		if v := c.arrayVarOf(b); v != nil {
			// an element of a declared array variable (decl.go)
			c.info.Uses[b] = v
			c.info.Types[b] = v.Type
			for _, i := range x.Indices {
				c.expr(i)
			}
			return c.subscript(x, v.Type)
		}
		if v := c.lookupVar(Global, b.Name, b.NamePos, false); v != nil && v.Assoc {
			if !c.definedYet(v, b.NamePos) { // order.go
				return nil
			}
			c.info.Uses[b] = v
			c.keys(x, v)
			if v.Type == nil {
				return nil
			}
			return v.Type
		}
	case *ast.AggVar:
		c.errorf(b.AtPos, "D_AGG_SCALAR", "aggregation @%s may not be used as a scalar", b.Name)
		return nil
	case *ast.SelfVar:
		v := c.lookupVar(Self, b.Name, b.NamePos, false)
		if v != nil && v.Assoc {
			if !c.definedYet(v, b.NamePos) { // order.go
				return nil
			}
			c.info.Uses[b] = v
			c.keys(x, v)
			return v.Type
		}
	}
	t := c.expr(x.X)
	for _, i := range x.Indices {
		c.expr(i)
	}
	if t == nil {
		return nil
	}
	t = c.indexBase(x.X, t) // decl.go: char array members
	if t.Kind != Pointer && t.Kind != Array {
		// dt_cook_op2: e[i] is *(e + i)
		c.errorf(x.Lbrack, "D_DEREF_NONPTR", "cannot dereference non-pointer type")
		return nil
	}
	return c.subscript(x, t) // decl.go
}

func (c *checker) argsIndex(x *ast.IndexExpr, id *ast.Ident) *Type {
	c.info.Builtins[id] = LookupBuiltinVar("args")
	if len(x.Indices) != 1 {
		c.errorf(x.Lbrack, "D_ARGS_IDX", "args[] requires exactly one index")
		return nil
	}
	c.expr(x.Indices[0])
	n, ok := c.constInt(x.Indices[0])
	if !ok {
		c.errorf(x.Indices[0].Pos(), "D_ARGS_IDX", "index of args[] must be an integer constant")
		return nil
	}
	cl := c.clause
	if cl.Args == nil {
		if len(cl.Probes) > 1 {
			c.errorf(x.Lbrack, "D_ARGS_MULTI", "args[] may not be referenced because probe description %s matches probes with different argument types", cl.Node.Probes[0].Text)
			return nil
		}
		if n < 0 || n >= 10 {
			c.errorf(x.Indices[0].Pos(), "D_ARGS_IDX", "index %d is out of range for %s args[ ]", n, cl.Node.Probes[0].Text)
			return nil
		}
		return TLong
	}
	if n < 0 || int(n) >= len(cl.Args) {
		c.errorf(x.Indices[0].Pos(), "D_ARGS_IDX", "index %d is out of range for %s args[ ]", n, cl.Node.Probes[0].Text)
		return nil
	}
	if n >= 10 {
		c.errorf(x.Indices[0].Pos(), "D_ARGS_IDX", "args[%d] is beyond the 10 arguments sonde records", n)
		return nil
	}
	return c.argXlated(x, cl, int(n)) // decl.go: translated arguments
}

// keys checks the key tuple of an associative array reference.
func (c *checker) keys(x *ast.IndexExpr, v *Var) {
	var kt []*Type
	for _, i := range x.Indices {
		t := c.expr(i)
		if t == nil {
			return
		}
		kt = append(kt, c.assocKeyType(t))
	}
	if v.Keys == nil {
		v.Keys = kt
		return
	}
	c.checkKeys(x, v, kt)
}

func (c *checker) checkKeys(x *ast.IndexExpr, v *Var, kt []*Type) {
	if len(kt) != len(v.Keys) {
		c.keyCountError(x.Lbrack, v, len(kt))
		return
	}
	for i := range kt {
		if (kt[i].Kind == String) != (v.Keys[i].Kind == String) || (kt[i].Kind == Stack) != (v.Keys[i].Kind == Stack) {
			c.keyTypeError(x.Indices[i].Pos(), v, i, kt[i])
			return
		}
		if kt[i].Kind == Int && v.Keys[i].Kind == Int && kt[i].Size > v.Keys[i].Size {
			v.Keys[i] = kt[i]
		}
		if kt[i].Kind == String && v.Keys[i].Kind == String {
			v.Keys[i] = widerStringKey(v.Keys[i], kt[i], c.cfg.StrSize)
		}
	}
}

// widerStringKey is the type of a string key that holds both a and b: the
// key of a map is laid out once, for every clause that uses it, so it must
// be as wide as the widest string any of them stores ("a" then
// "abcdefgh_1" as keys of one aggregation: 16 bytes, not the 8 of "a").
func widerStringKey(a, b *Type, strsize int) *Type {
	if a.Repr != b.Repr {
		// probefunc and "read" as keys of one aggregation: the key holds
		// the text, not the probe ID
		return StringType(max(strsize, a.Size, b.Size))
	}
	if b.Size > a.Size {
		return b
	}
	return a
}

// assocKeyType is the type a value takes as a key of an associative
// array. probefunc and the like are probe IDs until printed; as keys they
// are their text, since the array is looked up from other probes
// (syscall::read:entry stores ts[probefunc], syscall::read:return reads
// it) whose IDs differ. The text is as long as the longest the clause's
// probes give (a key of 8 bytes for "read", not 128: it is written and
// hashed on every lookup).
func (c *checker) assocKeyType(t *Type) *Type {
	if t.Kind != String || t.Repr == StrBuf {
		return keyType(t)
	}
	n := 0
	if c.clause != nil {
		for _, p := range c.clause.Probes {
			n = max(n, len(probeText(p, t.Repr))+1)
		}
	}
	if n == 0 || n > t.Size {
		n = t.Size
	}
	return StringType(n)
}

// probeText is the text probeprov, probemod, probefunc or probename (as r
// says) has when p fires.
func probeText(p *probe.Probe, r StrRepr) string {
	switch r {
	case StrProbeProv:
		return p.Provider
	case StrProbeMod:
		return p.Module
	case StrProbeFunc:
		return p.Function
	}
	return p.Name
}

// keyType is the type a value takes as a key: integers widen to 64 bits
// with their signedness.
func keyType(t *Type) *Type {
	if t.Kind == Int && t.Size < 8 {
		if t.Signed {
			return TLong
		}
		return TUlong
	}
	return t
}

// lvalue checks that e can be assigned by op (++ or --).
func (c *checker) lvalue(e ast.Expr, op token.Kind) {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if LookupBuiltinVar(x.Name) != nil {
			c.errorf(x.NamePos, "D_OP_WRITE", "operator %s can only be applied to a writable variable: %s is a read-only built-in variable", op, x.Name)
		}
		if c.inlines[x.Name] != nil {
			c.errorf(x.NamePos, "D_OP_WRITE", "operator %s can only be applied to a writable variable", op)
		}
	case *ast.SelectorExpr:
		// checked by memberLvalue once its operand is typed
	case *ast.UnaryExpr:
		if x.Op != token.MUL {
			c.errorf(e.Pos(), "D_OP_LVAL", "operator requires modifiable lvalue as an operand")
		}
		// *p: checked by memberLvalue once typed (svar.go)
	case *ast.IndexExpr:
		if isMemberLval(x) || c.isPtrIndex(x) {
			break // checked by memberLvalue (svar.go)
		}
		if !c.assocOrArrayElem(x) {
			// p[i]: memory elsewhere, which D does not write
			c.errorf(e.Pos(), "D_OP_LVAL", "operator requires modifiable lvalue as an operand")
		}
	case *ast.SelfVar, *ast.ThisVar:
	default:
		c.errorf(e.Pos(), "D_OP_LVAL", "operator requires modifiable lvalue as an operand")
	}
}

// assocOrArrayElem reports whether x may be assigned as an element of an
// associative array (declared, or defined by this use) or of an array
// variable.
func (c *checker) assocOrArrayElem(x *ast.IndexExpr) bool {
	if c.arrayElem(x) != nil {
		return true
	}
	var v *Var
	switch b := ast.Unparen(x.X).(type) {
	case *ast.Ident:
		if LookupBuiltinVar(b.Name) != nil || c.inlines[b.Name] != nil {
			return true // reported as such by assign
		}
		v = c.lookupVar(Global, b.Name, b.NamePos, false)
	case *ast.SelfVar:
		v = c.lookupVar(Self, b.Name, b.NamePos, false)
	default:
		return false
	}
	return v == nil || v.Type == nil || v.Assoc
}

// implicitInt defines a variable that ++, -- or a compound assignment
// uses before any assignment: it starts as an int64 0, as in DTrace.
func (c *checker) implicitInt(e ast.Expr) {
	var v *Var
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if LookupBuiltinVar(x.Name) != nil || c.inlines[x.Name] != nil {
			return
		}
		v = c.lookupVar(Global, x.Name, x.NamePos, true)
	case *ast.SelfVar:
		v = c.lookupVar(Self, x.Name, x.NamePos, true)
	case *ast.ThisVar:
		v = c.lookupVar(This, x.Name, x.NamePos, true)
	case *ast.IndexExpr:
		// a[k]++ and self->a[k]++ define an array of int64 too
		switch b := ast.Unparen(x.X).(type) {
		case *ast.Ident:
			if b.Name == "args" || LookupBuiltinVar(b.Name) != nil || c.inlines[b.Name] != nil {
				return
			}
			v = c.lookupVar(Global, b.Name, b.NamePos, true)
		case *ast.SelfVar:
			v = c.lookupVar(Self, b.Name, b.NamePos, true)
		default:
			return
		}
		if v.Type == nil && (v.Assoc || !v.Assigned) {
			v.Assoc, v.Type = true, TLong
		}
		return
	default:
		return
	}
	if v.Type == nil && !v.Assoc {
		v.Type = TLong
	}
}

// selector checks x.Sel and x->Sel. Members exist only on the structures
// providers give their arguments (args[0]->b_bcount, args->prev_comm).
func (c *checker) selector(x *ast.SelectorExpr) *Type {
	var t *Type
	if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && id.Name == "args" && LookupBuiltinVar("args") != nil && c.lookupVar(Global, "args", id.NamePos, false) == nil {
		c.info.Builtins[id] = LookupBuiltinVar("args")
		if c.clause == nil || c.clause.Record == nil {
			// DTrace's args is an array: args-> is sonde's, for the probes
			// whose arguments are one record (tracepoints)
			c.errorf(x.OpPos, "D_IDENT_BADREF", "associative array 'args' may not be referenced as scalar: the probes of this clause have no argument record (use args[n])")
			return nil
		}
		t = c.clause.Record
		c.info.Types[x.X] = t
	} else {
		t = c.expr(x.X)
	}
	if t == nil {
		return nil
	}
	if dt, ok := c.declSelector(x, t); ok {
		return dt // decl.go: declared structs and translations
	}
	st := t
	if x.Arrow {
		if t.Kind != Pointer {
			c.errorf(x.OpPos, "D_OP_PTR", "operator -> must be applied to a pointer")
			return nil
		}
		if t.Elem != nil && t.Elem.Kind != Struct && t.Elem.Kind != Void {
			c.errorf(x.OpPos, "D_OP_SOU", "operator -> cannot be applied to pointer to type \"%s\"; must be applied to a struct or union pointer", t.Elem)
			return nil
		}
		if t.Elem == nil || t.Elem.Kind != Struct {
			// kernel structures (curthread->...) are not typed here
			c.errorf(x.OpPos, "D_OPERAND", "member %s: operator %s cannot be applied to this operand", x.Sel, arrow(x.Arrow))
			return nil
		}
		st = t.Elem
	} else if t.Kind != Struct {
		c.errorf(x.OpPos, "D_OP_SOU", "operator . cannot be applied to type \"%s\"; must be applied to a struct or union", t)
		return nil
	}
	if st.Src == nil {
		c.errorf(x.OpPos, "D_OPERAND", "member %s: operator %s cannot be applied to this operand", x.Sel, arrow(x.Arrow))
		return nil
	}
	m, ok := st.Src.Member(x.Sel)
	if !ok {
		c.errorf(x.OpPos, "D_TYPE_MEMBER", "%s is not a member of %s", x.Sel, st.Name)
		return nil
	}
	for _, alt := range st.Alts {
		if am, ok := alt.Member(x.Sel); !ok || !reflect.DeepEqual(*am, *m) {
			c.errorf(x.OpPos, "D_TYPE_MEMBER", "%s is not a member of %s for every probe of this clause: split the clause", x.Sel, st.Name)
			return nil
		}
	}
	c.info.Members[x] = m
	switch m.Kind {
	case probe.MemberString, probe.MemberDataLoc:
		n := m.Size
		if m.Kind == probe.MemberDataLoc || n > c.cfg.StrSize {
			n = c.cfg.StrSize
		}
		return StringType(n)
	}
	return &Type{Kind: Int, Size: m.Size, Signed: m.Signed, Name: m.Type}
}

// isVoidPtr reports whether t is a pointer to void (dt_node_is_vfptr), which
// has no size to step by.
func isVoidPtr(t *Type) bool {
	return t != nil && t.Kind == Pointer && (t.Elem == nil || t.Elem.Kind == Void)
}

// ptrCompat is dt_node_is_ptrcompat for operands a and b (expressions x
// and y) of which one at least is a pointer: two pointers to the same type
// or one to void, or a pointer and the integer constant 0.
func (c *checker) ptrCompat(a, b *Type, x, y ast.Expr) bool {
	if a.Kind == Pointer && b.Kind == Pointer {
		return isVoidPtr(a) || isVoidPtr(b) || sameType(a.Elem, b.Elem) || IsCharPtr(a) && IsCharPtr(b)
	}
	z := y
	if a.Kind == Int {
		z = x
	}
	k, ok := c.info.Consts[ast.Unparen(z)]
	if !ok {
		if n, isConst := c.constInt(ast.Unparen(z)); isConst {
			return n == 0
		}
		return false
	}
	return !k.IsStr && k.Int == 0
}
