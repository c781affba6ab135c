package check

import (
	"fmt"
	"strconv"

	"github.com/sonde-trace/sonde/internal/d/ast"
)

// call checks a call of a subroutine or action; stmt is set when the call
// is a whole statement (actions are allowed only there).
func (c *checker) call(x *ast.CallExpr, stmt bool) *Type {
	id, ok := x.Fun.(*ast.Ident)
	if !ok {
		c.expr(x.Fun)
		c.errorf(x.Lparen, "D_FUNC_IDENT", "function designator is not of function type")
		return nil
	}
	b := LookupBuiltin(id.Name)
	if b == nil {
		if kind := c.identKind(id.Name); kind != "" {
			// dt_node_func: a known identifier that is not a function
			c.errorf(id.NamePos, "D_FUNC_IDKIND", "%s '%s' may not be referenced as a function", kind, id.Name)
			return nil
		}
		for _, a := range x.Args {
			c.expr(a)
		}
		c.errorf(id.NamePos, "D_FUNC_UNDEF", "failed to resolve %s: unknown function name", id.Name)
		return nil
	}
	c.info.Calls[x] = b
	if !c.checkArgCount(x, b) {
		return nil
	}
	switch b.Kind {
	case AggFunc:
		// dt_cg_node: only an aggregation's value may be an aggregating
		// function
		c.errorf(id.NamePos, "D_CG_EXPR", "aggregating function %s( ) may not be called from a D expression (D program context required)", b.Name)
		return nil
	case Action:
		if !stmt {
			c.errorf(id.NamePos, "D_CG_EXPR", "tracing function %s( ) may not be called from a D expression (D program context required)", b.Name)
		}
		if b.Destructive && !c.cfg.Destructive {
			c.errorf(id.NamePos, "D_ACT_DESTRUCT", "%s( ) is a destructive action: run with -w to allow it", b.Name)
		}
		c.action(x, b)
		return TVoid
	}
	if b.Destructive && !c.cfg.Destructive {
		c.errorf(id.NamePos, "D_ACT_DESTRUCT", "%s( ) is a destructive subroutine: run with -w to allow it", b.Name)
	}
	return c.subr(x, b)
}

func (c *checker) checkArgCount(x *ast.CallExpr, b *Builtin) bool {
	n := len(x.Args)
	var want string
	switch {
	case n < b.Min && b.Min != b.Max:
		want = fmt.Sprintf("at least %d", b.Min)
	case b.Max >= 0 && n > b.Max && b.Min != b.Max:
		want = fmt.Sprintf("at most %d", b.Max)
	case n != b.Min && b.Min == b.Max:
		want = strconv.Itoa(b.Min)
	default:
		return true
	}
	// dt_idcook_sign's wording: "1 arg passed", "2 args passed"
	s := "s"
	if n == 1 {
		s = ""
	}
	c.errorf(x.Lparen, "D_PROTO_LEN", "%s( ) prototype mismatch: %d arg%s passed, %s expected", b.Name, n, s, want)
	return false
}

// IsCharPtr reports whether t is a char * (or unsigned char *), which D's
// string subroutines take as the NUL-terminated string it points to.
func IsCharPtr(t *Type) bool {
	return t != nil && t.Kind == Pointer && t.Elem != nil && t.Elem.Kind == Int && t.Elem.Size == 1
}

func (c *checker) argInt(x *ast.CallExpr, i int) {
	t := c.expr(x.Args[i])
	if t != nil && !t.IsInt() {
		c.errorf(x.Args[i].Pos(), "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype:\n\tprototype: integer\n\t argument: %s", calleeName(x), i+1, t)
	}
}

func (c *checker) argStr(x *ast.CallExpr, i int) {
	t := c.expr(x.Args[i])
	if IsCharPtr(t) {
		return // a char * is the string it points to, as in DTrace's prototypes
	}
	if t != nil && t.Kind != String {
		c.errorf(x.Args[i].Pos(), "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype:\n\tprototype: string\n\t argument: %s", calleeName(x), i+1, t)
	}
}

// argPtr checks that argument i is a pointer compatible with proto
// ("void *", "ipaddr_t *" or "in6_addr_t *"), as dt_node_is_argcompat
// does: void * goes with any pointer, an integer is refused.
func (c *checker) argPtr(x *ast.CallExpr, i int, proto string) {
	t := c.expr(x.Args[i])
	if t == nil {
		return
	}
	ok := t.Kind == Pointer
	if ok && t.Elem != nil && t.Elem.Kind != Void {
		switch proto {
		case "ipaddr_t *":
			ok = t.Elem.Kind == Int && t.Elem.Size == 4 && !t.Elem.Signed
		case "in6_addr_t *":
			ok = t.Elem.Name == "in6_addr_t" || t.Elem.Name == "struct in6_addr"
		}
	}
	if !ok {
		c.errorf(x.Args[i].Pos(), "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype:\n\tprototype: %s\n\t argument: %s", calleeName(x), i+1, proto, t)
	}
}

func (c *checker) argConst(x *ast.CallExpr, i int) (int64, bool) {
	c.expr(x.Args[i])
	n, ok := c.constInt(x.Args[i])
	if !ok {
		c.errorf(x.Args[i].Pos(), "D_PROTO_ARG", "%s( ) argument #%d must be an integer constant", calleeName(x), i+1)
	}
	return n, ok
}

func calleeName(x *ast.CallExpr) string {
	if id, ok := x.Fun.(*ast.Ident); ok {
		return id.Name
	}
	return "function"
}

// aggArg checks that argument i names an aggregation; tag is the
// action's tag prefix (D_CLEAR, D_PRINTA, ...), for AGGARG and AGGBAD.
func (c *checker) aggArg(x *ast.CallExpr, i int, tag string) *Var {
	av, ok := ast.Unparen(x.Args[i]).(*ast.AggVar)
	if !ok {
		t := c.expr(x.Args[i])
		c.errorf(x.Args[i].Pos(), tag+"_AGGARG", "%s( ) argument #%d is incompatible with prototype:\n\tprototype: aggregation\n\t argument: %s", calleeName(x), i+1, t)
		return nil
	}
	v := c.lookupVar(Aggregation, av.Name, av.AtPos, false)
	if v == nil {
		c.errorf(av.AtPos, tag+"_AGGBAD", "undefined aggregation: @%s", av.Name)
		return nil
	}
	c.info.Uses[av] = v
	c.info.Types[av] = TAgg
	return v
}

func (c *checker) action(x *ast.CallExpr, b *Builtin) {
	switch b.Name {
	case "freopen":
		// freopen("") goes back to standard output
		c.expr(x.Args[0])
		if k, ok := c.info.Consts[ast.Unparen(x.Args[0])]; ok && k.IsStr && k.Str == "" && len(x.Args) == 1 {
			break
		}
		c.printf(x, 0)
	case "printf", "system":
		c.printf(x, 0)
	case "printa":
		c.printa(x)
	case "trace":
		if av, ok := ast.Unparen(x.Args[0]).(*ast.AggVar); ok && c.lookupVar(Aggregation, av.Name, av.AtPos, false) == nil {
			c.errorf(av.AtPos, "D_IDENT_UNDEF", "failed to resolve @%s: unknown variable name", av.Name)
			return
		}
		if isDynamic(x.Args[0]) {
			c.errorf(x.Args[0].Pos(), "D_TRACE_DYN", "trace( ) may not be applied to a dynamic expression")
			return
		}
		t := c.expr(x.Args[0])
		if t != nil && (t.Kind == Void || t.Kind == Agg) {
			c.errorf(x.Args[0].Pos(), "D_TRACE_VOID", "trace( ) may not be applied to a void expression")
		}
	case "tracemem":
		// dt_action_tracemem
		if t := c.expr(x.Args[0]); t != nil && !t.IsInt() {
			c.errorf(x.Args[0].Pos(), "D_TRACEMEM_ADDR", "tracemem( ) argument #1 is incompatible with prototype:\n\tprototype: pointer or integer\n\t argument: %s", t)
			return
		}
		c.expr(x.Args[1])
		if n, ok := c.constInt(x.Args[1]); !ok || n <= 0 {
			c.errorf(x.Args[1].Pos(), "D_TRACEMEM_SIZE", "tracemem( ) argument #2 must be a non-zero positive integral constant expression")
			return
		}
		if len(x.Args) > 2 {
			c.argInt(x, 2)
		}
	case "exit", "raise", "chill":
		c.argInt(x, 0)
	case "clear":
		if c.aggProto(x, "D_CLEAR", 1, 1, "1") {
			c.aggArg(x, 0, "D_CLEAR")
		}
	case "denormalize", "normalize":
		n := 1
		if b.Name == "normalize" {
			n = 2
		}
		if c.aggProto(x, "D_NORMALIZE", n, n, strconv.Itoa(n)) {
			c.aggArg(x, 0, "D_NORMALIZE")
			if n == 2 {
				c.scalarArg(x, 1, "D_NORMALIZE")
			}
		}
	case "trunc":
		want := "no more than 2"
		if len(x.Args) < 1 {
			want = "at least 1"
		}
		if c.aggProto(x, "D_TRUNC", 1, 2, want) {
			c.aggArg(x, 0, "D_TRUNC")
			if len(x.Args) > 1 {
				c.scalarArg(x, 1, "D_TRUNC")
			}
		}
	case "setopt":
		c.argStr(x, 0)
		if len(x.Args) > 1 {
			c.argStr(x, 1)
		}
	case "speculate", "commit", "discard":
		c.argInt(x, 0)
	}
}

// printf checks a printf-style argument list whose format is argument i.
func (c *checker) printf(x *ast.CallExpr, i int) {
	t := c.expr(x.Args[i])
	if k, ok := c.info.Consts[ast.Unparen(x.Args[i])]; (!ok || !k.IsStr) && t != nil {
		// dt_action_printflike
		c.errorf(x.Args[i].Pos(), "D_PRINTF_ARG_FMT", "%s( ) argument #%d is incompatible with prototype:\n\tprototype: string constant\n\t argument: %s", calleeName(x), i+1, t)
	}
	for _, a := range x.Args[i+1:] {
		t := c.expr(a)
		if t != nil && (t.Kind == Void || t.Kind == Agg) {
			c.errorf(a.Pos(), "D_PRINTF_ARG_TYPE", "%s( ) argument has no value", calleeName(x))
		}
	}
	c.checkFormat(x, i)
}

func (c *checker) subr(x *ast.CallExpr, b *Builtin) *Type {
	str := StringType(c.cfg.StrSize)
	switch b.Name {
	case "copyinstr":
		c.argInt(x, 0)
		if len(x.Args) > 1 {
			c.argInt(x, 1) // a constant sizes the string; another bounds it when the code runs
			n, ok := c.constInt(x.Args[1])
			if ok && n > 0 && int(n)+1 < c.cfg.StrSize {
				return StringType(int(n) + 1)
			}
		}
		return str
	case "copyin":
		c.argInt(x, 0)
		c.argInt(x, 1)
		return &Type{Kind: Pointer, Size: 8, Elem: TVoid, Name: "void *"}
	case "stringof":
		t := c.expr(x.Args[0])
		if t != nil && t.Kind == String {
			return t
		}
		return str
	case "strlen":
		c.argStr(x, 0)
		return &Type{Kind: Int, Size: 8, Name: "size_t"}
	case "strjoin":
		c.argStr(x, 0)
		c.argStr(x, 1)
		return str
	case "strchr", "strrchr":
		c.argStr(x, 0)
		c.argInt(x, 1)
		return str
	case "strstr":
		c.argStr(x, 0)
		c.argStr(x, 1)
		return str
	case "cleanpath":
		c.argStr(x, 0)
		return str
	case "strtok":
		// strtok(NULL, delim) goes on with the string of the last call
		if t := c.expr(x.Args[0]); t != nil && t.Kind != String {
			if k, ok := c.constInt(x.Args[0]); !ok || k != 0 {
				c.errorf(x.Args[0].Pos(), "D_PROTO_ARG", "strtok( ) argument #1 is incompatible with prototype:\n\tprototype: string or NULL\n\t argument: %s", t)
			}
		}
		c.argStr(x, 1)
		return str
	case "substr":
		c.argStr(x, 0)
		c.argInt(x, 1)
		if len(x.Args) > 2 {
			c.argInt(x, 2)
		}
		return str
	case "index", "rindex":
		c.argStr(x, 0)
		c.argStr(x, 1)
		if len(x.Args) > 2 {
			c.argInt(x, 2)
		}
		return TInt
	case "basename", "dirname", "toupper", "tolower":
		c.argStr(x, 0)
		return str
	case "lltostr":
		c.argInt(x, 0)
		if len(x.Args) > 1 {
			c.argConst(x, 1)
		}
		return StringType(66)
	case "strtoll":
		c.argStr(x, 0)
		if len(x.Args) > 1 {
			c.argConst(x, 1)
		}
		return TLong
	case "htons", "ntohs":
		c.argInt(x, 0)
		return TUshort
	case "htonl", "ntohl":
		c.argInt(x, 0)
		return TUint
	case "htonll", "ntohll":
		c.argInt(x, 0)
		return TUlong
	case "inet_ntoa":
		c.argPtr(x, 0, "ipaddr_t *")
		return StringType(16)
	case "inet_ntoa6":
		c.argPtr(x, 0, "in6_addr_t *")
		return StringType(48)
	case "inet_ntop":
		c.argInt(x, 0)
		c.argPtr(x, 1, "void *")
		return StringType(48)
	case "copyinto":
		c.argInt(x, 0)
		c.argInt(x, 1)
		c.argPtr(x, 2, "void *")
		return TVoid
	case "bcopy":
		c.argPtr(x, 0, "void *")
		c.argPtr(x, 1, "void *")
		c.argInt(x, 2)
		return TVoid
	case "copyout":
		c.argPtr(x, 0, "void *")
		c.argInt(x, 1)
		c.argInt(x, 2)
		return TVoid
	case "copyoutstr":
		c.argStr(x, 0)
		c.argInt(x, 1)
		c.argInt(x, 2)
		return TVoid
	case "alloca":
		c.argInt(x, 0)
		return &Type{Kind: Pointer, Size: 8, Elem: TVoid, Name: "void *"}
	case "rand":
		return TInt
	case "progenyof":
		c.argInt(x, 0)
		return TInt
	case "speculation":
		return TInt
	case "stack", "ustack", "jstack":
		// dt_action_stack_args, dt_action_ustack_args
		depth := int64(0)
		if len(x.Args) > 0 {
			c.expr(x.Args[0])
			n, ok := c.constInt(x.Args[0])
			switch {
			case (!ok || n < 1) && b.Name == "stack":
				c.errorf(x.Args[0].Pos(), "D_STACK_SIZE", "stack( ) size must be a non-zero positive integral constant expression")
				return nil
			case !ok || n < 1:
				c.errorf(x.Args[0].Pos(), "D_USTACK_FRAMES", "ustack( ) argument #1 must be a non-zero positive integer constant")
				return nil
			case n > 127:
				c.errorf(x.Args[0].Pos(), "D_STACK_SIZE", "%s( ) depth must be between 1 and 127", b.Name)
			}
			depth = n
		}
		if len(x.Args) > 1 {
			c.expr(x.Args[1])
			if n, ok := c.constInt(x.Args[1]); !ok || n < 0 {
				c.errorf(x.Args[1].Pos(), "D_USTACK_STRSIZE", "ustack( ) argument #2 must be a positive integer constant")
				return nil
			}
		}
		if depth == 0 && b.Name == "stack" {
			depth = int64(c.cfg.StackFrames)
		} else if depth == 0 {
			depth = int64(c.cfg.UStackFrames)
		}
		if m := int64(c.cfg.MaxFrames); m > 0 {
			if depth == 0 {
				depth = defaultStackFrames
			}
			depth = min(depth, m) // more frames than allowed: silently fewer
		}
		return &Type{Kind: Stack, Size: 8, User: b.Name != "stack", Depth: int(depth), Name: b.Name + "()"}
	case "sym", "func":
		c.argInt(x, 0)
		return &Type{Kind: Sym, Size: 8, SymK: SymKernel, Name: "_symaddr"}
	case "usym", "ufunc":
		c.argInt(x, 0)
		return &Type{Kind: Sym, Size: 8, SymK: SymUser, Name: "_usymaddr"}
	case "mod":
		c.argInt(x, 0)
		return &Type{Kind: Sym, Size: 8, SymK: SymMod, Name: "_symaddr"}
	case "umod":
		c.argInt(x, 0)
		return &Type{Kind: Sym, Size: 8, SymK: SymUMod, Name: "_usymaddr"}
	case "uaddr":
		c.argInt(x, 0)
		return &Type{Kind: Sym, Size: 8, SymK: SymUAddr, Name: "_usymaddr"}
	case "getmajor", "getminor":
		c.argInt(x, 0)
		return TUint
	}
	return nil
}

// defaultStackFrames is the depth of stack() and ustack() when neither
// the call nor the stackframes options give one (codegen's default).
const defaultStackFrames = 20

// aggProto checks the argument count of clear(), normalize() and the like,
// which DTrace declares variadic and checks itself (tag_PROTO).
func (c *checker) aggProto(x *ast.CallExpr, tag string, min, max int, want string) bool {
	if n := len(x.Args); n < min || n > max {
		for _, a := range x.Args {
			c.expr(a)
		}
		c.errorf(x.Lparen, tag+"_PROTO", "%s( ) prototype mismatch: %d args passed, %s expected", calleeName(x), n, want)
		return false
	}
	return true
}

// scalarArg checks the value argument of normalize() and trunc().
func (c *checker) scalarArg(x *ast.CallExpr, i int, tag string) {
	t := c.expr(x.Args[i])
	if t != nil && !t.IsScalar() {
		c.errorf(x.Args[i].Pos(), tag+"_SCALAR", "%s( ) argument #%d must be of scalar type", calleeName(x), i+1)
	}
}

// printa checks printa([format,] @a, ...) as dt_action_printa does: the
// aggregations after the optional format must have matching keys.
func (c *checker) printa(x *ast.CallExpr) {
	first := 0
	if len(x.Args) > 0 {
		if _, ok := ast.Unparen(x.Args[0]).(*ast.AggVar); !ok {
			t := c.expr(x.Args[0])
			if t != nil && t.Kind != String {
				c.errorf(x.Args[0].Pos(), "D_PRINTA_AGGARG", "printa( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: %s", t)
				return
			}
			if _, ok := c.info.Consts[ast.Unparen(x.Args[0])]; !ok {
				c.errorf(x.Args[0].Pos(), "D_PRINTF_ARG_FMT", "printa( ) format must be a string constant")
			}
			first = 1
		}
	}
	if len(x.Args) == 0 {
		c.errorf(x.Lparen, "D_PROTO_LEN", "printa( ) prototype mismatch: 0 args passed, at least 1 expected")
		return
	}
	if len(x.Args) < first+1 {
		c.errorf(x.Lparen, "D_PRINTA_PROTO", "printa( ) prototype mismatch: %d args passed, %d expected", len(x.Args), first+1)
		return
	}
	var proto *Var
	var protoName string
	for i := first; i < len(x.Args); i++ {
		v := c.aggArg(x, i, "D_PRINTA")
		if v == nil {
			continue
		}
		name := ast.Unparen(x.Args[i]).(*ast.AggVar).Name
		if proto == nil {
			proto, protoName = v, name
			if first == 1 {
				c.checkAggFormat(x, v) // format.go
			}
			continue
		}
		// dt_printa_validate
		if len(v.Keys) != len(proto.Keys) {
			c.errorf(x.Args[i].Pos(), "D_PRINTA_AGGKEY", "printa( ): @%s and @%s do not have matching key signatures: @%s has %d key%s, @%s has %d key%s",
				protoName, name, protoName, len(proto.Keys), plural(len(proto.Keys)), name, len(v.Keys), plural(len(v.Keys)))
			continue
		}
		for k := range v.Keys {
			if !keyCompat(proto.Keys[k], v.Keys[k]) {
				c.errorf(x.Args[i].Pos(), "D_PRINTA_AGGPROTO", "printa( ): @%s[ ] key #%d is incompatible with @%s:\n%9s key #%d: %s\n%9s key #%d: %s",
					name, k+1, protoName, "@"+protoName, k+1, proto.Keys[k], "@"+name, k+1, v.Keys[k])
				break
			}
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// keyCompat is dt_node_is_argcompat for key types: integers with
// integers, strings with strings, stacks with stacks, symbols of one kind.
func keyCompat(a, b *Type) bool {
	switch {
	case a.Kind == Int && b.Kind == Int:
		return true
	case a.Kind == Sym && b.Kind == Sym:
		return (a.SymK == SymKernel || a.SymK == SymMod) == (b.SymK == SymKernel || b.SymK == SymMod)
	}
	return a.Kind == b.Kind
}

// identKind names the kind of a known identifier that is not a function,
// as dt_idkind_name does, or returns "".
func (c *checker) identKind(name string) string {
	switch {
	case name == "args" || name == "uregs" || name == "fds":
		return "associative array"
	case LookupBuiltinVar(name) != nil:
		return "scalar"
	}
	if v, ok := c.vars[scopePrefix(Global)+name]; ok && v.Declared {
		if v.Assoc {
			return "associative array"
		}
		return "scalar"
	}
	if _, ok := c.inlines[name]; ok {
		return "scalar"
	}
	return ""
}

// isAction reports whether e is a call of a tracing function (an action).
func isAction(e ast.Expr) bool {
	x, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := x.Fun.(*ast.Ident)
	if !ok {
		return false
	}
	b := LookupBuiltin(id.Name)
	return b != nil && b.Kind == Action
}

// isDynamic reports whether e is an aggregation (of dynamic type in DTrace).
func isDynamic(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.AggVar:
		return true
	case *ast.IndexExpr:
		_, ok := ast.Unparen(x.X).(*ast.AggVar)
		return ok
	}
	return false
}
