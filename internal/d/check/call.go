package check

import (
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
		c.errorf(id.NamePos, "D_AGG_FUNC", "%s( ) may only be used as the value of an aggregation (@x = %s(...))", b.Name, b.Name)
		return nil
	case Action:
		if !stmt {
			c.errorf(id.NamePos, "D_ACT_SPEC", "%s( ) is an action and may not be used in an expression", b.Name)
		}
		if b.Destructive && !c.cfg.Destructive {
			c.errorf(id.NamePos, "D_ACT_DESTRUCT", "%s( ) is a destructive action: run with -w to allow it", b.Name)
		}
		c.action(x, b)
		return TVoid
	}
	return c.subr(x, b)
}

func (c *checker) checkArgCount(x *ast.CallExpr, b *Builtin) bool {
	n := len(x.Args)
	if n < b.Min || (b.Max >= 0 && n > b.Max) {
		switch {
		case b.Min == b.Max:
			c.errorf(x.Lparen, "D_PROTO_LEN", "%s( ) prototype mismatch: %d args passed, %d expected", b.Name, n, b.Min)
		case b.Max < 0:
			c.errorf(x.Lparen, "D_PROTO_LEN", "%s( ) prototype mismatch: %d args passed, at least %d expected", b.Name, n, b.Min)
		default:
			c.errorf(x.Lparen, "D_PROTO_LEN", "%s( ) prototype mismatch: %d args passed, %d to %d expected", b.Name, n, b.Min, b.Max)
		}
		return false
	}
	return true
}

func (c *checker) argInt(x *ast.CallExpr, i int) {
	t := c.expr(x.Args[i])
	if t != nil && !t.IsInt() {
		c.errorf(x.Args[i].Pos(), "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype:\n\tprototype: integer\n\t argument: %s", calleeName(x), i+1, t)
	}
}

func (c *checker) argStr(x *ast.CallExpr, i int) {
	t := c.expr(x.Args[i])
	if t != nil && t.Kind != String {
		c.errorf(x.Args[i].Pos(), "D_PROTO_ARG", "%s( ) argument #%d is incompatible with prototype:\n\tprototype: string\n\t argument: %s", calleeName(x), i+1, t)
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

// aggArg checks that argument i names an aggregation.
func (c *checker) aggArg(x *ast.CallExpr, i int) *Var {
	av, ok := ast.Unparen(x.Args[i]).(*ast.AggVar)
	if !ok {
		c.expr(x.Args[i])
		c.errorf(x.Args[i].Pos(), "D_PROTO_ARG", "%s( ) argument #%d must be an aggregation", calleeName(x), i+1)
		return nil
	}
	v := c.lookupVar(Aggregation, av.Name, av.AtPos, false)
	if v == nil {
		c.errorf(av.AtPos, "D_AGG_NOTDEF", "aggregation @%s is not defined", av.Name)
		return nil
	}
	c.info.Uses[av] = v
	c.info.Types[av] = TAgg
	return v
}

func (c *checker) action(x *ast.CallExpr, b *Builtin) {
	switch b.Name {
	case "printf", "system":
		c.printf(x, 0)
	case "printa":
		first := 0
		if _, ok := ast.Unparen(x.Args[0]).(*ast.AggVar); !ok {
			c.argStr(x, 0)
			if _, ok := c.info.Consts[ast.Unparen(x.Args[0])]; !ok {
				c.errorf(x.Args[0].Pos(), "D_PRINTF_FMT", "printa( ) format must be a string constant")
			}
			first = 1
			if len(x.Args) < 2 {
				c.errorf(x.Rparen, "D_PRINTA_PROTO", "printa( ) requires an aggregation argument")
			}
		}
		for i := first; i < len(x.Args); i++ {
			c.aggArg(x, i)
		}
	case "trace":
		t := c.expr(x.Args[0])
		if t != nil && (t.Kind == Void || t.Kind == Agg) {
			c.errorf(x.Args[0].Pos(), "D_TRACE_VOID", "trace( ) may not be applied to a void expression")
		}
	case "tracemem":
		c.argInt(x, 0)
		if _, ok := c.argConst(x, 1); !ok {
			return
		}
		if len(x.Args) > 2 {
			c.argInt(x, 2)
		}
	case "exit", "raise":
		c.argInt(x, 0)
	case "clear", "denormalize":
		c.aggArg(x, 0)
	case "trunc":
		c.aggArg(x, 0)
		if len(x.Args) > 1 {
			c.argInt(x, 1)
		}
	case "normalize":
		c.aggArg(x, 0)
		c.argInt(x, 1)
	case "setopt":
		c.argStr(x, 0)
		if len(x.Args) > 1 {
			c.argStr(x, 1)
		}
	case "speculate", "commit", "discard":
		c.argInt(x, 0)
	case "copyinto":
		c.argInt(x, 0)
		c.argInt(x, 1)
		c.expr(x.Args[2])
	}
}

// printf checks a printf-style argument list whose format is argument i.
func (c *checker) printf(x *ast.CallExpr, i int) {
	c.argStr(x, i)
	if k, ok := c.info.Consts[ast.Unparen(x.Args[i])]; !ok || !k.IsStr {
		c.errorf(x.Args[i].Pos(), "D_PRINTF_FMT", "%s( ) format must be a string constant", calleeName(x))
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
			n, ok := c.argConst(x, 1)
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
		c.argInt(x, 0)
		return StringType(16)
	case "inet_ntop":
		c.argInt(x, 0)
		c.argInt(x, 1)
		return StringType(48)
	case "rand":
		return TInt
	case "progenyof":
		c.argInt(x, 0)
		return TInt
	case "speculation":
		return TInt
	case "stack", "ustack", "jstack":
		depth := int64(0)
		if len(x.Args) > 0 {
			n, ok := c.argConst(x, 0)
			if ok && (n < 1 || n > 127) {
				c.errorf(x.Args[0].Pos(), "D_STACK_SIZE", "%s( ) depth must be between 1 and 127", b.Name)
			}
			depth = n
		}
		if len(x.Args) > 1 {
			c.argConst(x, 1)
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
