// Package check is the D type checker. It resolves every name of a parsed
// program (built-in variables, globals, thread-locals, clause-locals,
// inlines, aggregations, subroutines and actions), matches each clause's
// probe descriptions through a Resolver, and records the results in side
// tables (Info); the tree itself is never modified.
//
// Invariants: every expression reachable from a checked clause has an entry
// in Info.Types; every variable has one type for the whole program (the type
// of its first assignment, in two passes so a clause may read a variable that
// a later clause assigns); errors carry DTrace's tags.
package check

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/value"
)

// Resolver matches probe descriptions to probes.
type Resolver interface {
	Match(d probe.Desc) ([]*probe.Probe, error)
}

// Config is what the checker needs besides the program.
type Config struct {
	Resolver    Resolver
	Types       TypeResolver      // the kernel's types (ktypes.go); nil: none
	Macros      map[string]string // "1" -> "foo", "target" -> "1234"
	ZeroMatches bool              // -Z: a description matching nothing is not an error
	Destructive bool              // -w (also #pragma D option destructive)
	// NoDestructive refuses destructive actions whatever the program's
	// pragmas say (D that comes from the analytics API, never run with -w).
	NoDestructive bool
	DefaultArgs   bool // -x defaultargs: an unset $N is 0, $$N "" (also the pragma)
	StrSize       int  // strsize option
	// StackFrames and UStackFrames are the stackframes and ustackframes
	// options: the depth of stack() and ustack() without one (0: the
	// default).
	StackFrames, UStackFrames int
	// MaxFrames, when set, caps those depths and stack(n)'s, silently
	// (Oracle's maxframes option).
	MaxFrames int
}

// VarScope says where a variable lives.
type VarScope int

// Variable scopes.
const (
	Global VarScope = iota
	Self
	This
	Aggregation
)

// Var is a program variable.
type Var struct {
	Scope    VarScope
	Name     string
	Type     *Type
	Keys     []*Type // associative arrays and aggregations: key types
	Assoc    bool
	ID       int // order of first appearance within its scope
	Pos      token.Pos
	Func     value.AggFunc // aggregations
	Params   value.AggParams
	HasFunc  bool
	FuncPos  token.Pos
	Assigned bool
	Declared bool // typed by a declaration: assignments never change it
	decl     *ast.VarDecl
	// defined is set when a clause assigns the variable; defClause is
	// the first such clause in program order (order.go).
	defined   bool
	defClause int
}

// Clause is one checked probe clause.
type Clause struct {
	Node   *ast.ProbeClause
	Index  int // 0-based in program order
	Probes []*probe.Probe
	Args   []*Type // types of args[] when every probe agrees; nil otherwise
	// Record is the type args-> reads (a pointer to the tracepoint record)
	// when every probe has the same record layout; nil otherwise.
	Record *Type
	// Subject is the probes' Probe.Subject (whose thread pid, tid,
	// execname and self-> mean), or -1 when the probes disagree.
	Subject int
}

// Call says what a call expression is.
type Call struct {
	Name    string
	Builtin *Builtin
}

// Info holds the results of checking.
type Info struct {
	Types    map[ast.Expr]*Type
	Consts   map[ast.Expr]Const // compile-time constants (literals, inlines, macros, sizeof)
	Uses     map[ast.Expr]*Var  // variable references
	Calls    map[*ast.CallExpr]*Builtin
	Globals  []*Var
	Selfs    []*Var
	Thiss    []*Var
	Aggs     []*Var
	Clauses  []*Clause
	Options  []Option // #pragma D option, in order
	Probes   []*probe.Probe
	Builtins map[*ast.Ident]*BuiltinVar
	// Members are the provider structure members that selector
	// expressions on probe arguments read.
	Members map[*ast.SelectorExpr]*probe.Member
	// Declared types and translators (decl.go): Fields are the members
	// of declared structs that selector expressions read from memory;
	// Xlates the translations (xlate expressions and translated args[i]);
	// XMembers the members of translations; Params the references to
	// translator parameters in translator members.
	Fields      map[*ast.SelectorExpr]*Field
	Xlates      map[ast.Expr]*Xlation
	XMembers    map[*ast.SelectorExpr]*XMember
	Params      map[*ast.Ident]*Translator
	Translators []*Translator
	// Inlines are the references to inlines (whose values code
	// generation compiles in place unless they are constants).
	Inlines map[*ast.Ident]*ast.InlineDecl
}

// Option is a #pragma D option.
type Option struct {
	Name, Value string
	Pos         token.Pos
}

// Const is a compile-time constant.
type Const struct {
	IsStr bool
	Int   int64
	Str   string
}

type checker struct {
	cfg     Config
	info    *Info
	errs    diag.List
	vars    map[string]*Var // key: scope prefix + name
	inlines map[string]*ast.InlineDecl
	clause  *Clause
	final   bool // second pass: report errors
	types   map[string]*Type
	// inlining holds the inlines whose values are being checked, so that
	// one defined in terms of itself is an error, not endless recursion;
	// inlined holds the type of each inline checked in this pass, so that
	// a value is checked once, not once per use of every inline using it.
	inlining map[*ast.InlineDecl]bool
	inlined  map[*ast.InlineDecl]*Type
	defining *ast.InlineDecl // the inline whose value is being checked
	dcl      *declState      // declared types and translators (decl.go)
}

// Check checks prog. Errors are returned sorted; Info is usable as far as
// it got.
func Check(progs []*ast.Program, cfg Config) (*Info, diag.List) {
	if cfg.StrSize <= 0 {
		cfg.StrSize = 256
	}
	c := &checker{
		cfg: cfg,
		info: &Info{
			Types:    map[ast.Expr]*Type{},
			Consts:   map[ast.Expr]Const{},
			Uses:     map[ast.Expr]*Var{},
			Calls:    map[*ast.CallExpr]*Builtin{},
			Builtins: map[*ast.Ident]*BuiltinVar{},
			Members:  map[*ast.SelectorExpr]*probe.Member{},
			Fields:   map[*ast.SelectorExpr]*Field{},
			Xlates:   map[ast.Expr]*Xlation{},
			XMembers: map[*ast.SelectorExpr]*XMember{},
			Params:   map[*ast.Ident]*Translator{},
			Inlines:  map[*ast.Ident]*ast.InlineDecl{},
		},
		vars:     map[string]*Var{},
		inlines:  map[string]*ast.InlineDecl{},
		types:    map[string]*Type{},
		inlining: map[*ast.InlineDecl]bool{},
	}
	for _, p := range progs {
		c.collectDecls(p)
	}
	// Pass 1 infers variable types from assignments anywhere; pass 2
	// checks with every variable known and reports errors.
	for pass := 0; pass < 2; pass++ {
		c.final = pass == 1
		c.inlined = map[*ast.InlineDecl]*Type{}
		c.checkTranslators()
		idx := 0
		for _, p := range progs {
			for _, d := range p.Decls {
				if pc, ok := d.(*ast.ProbeClause); ok {
					c.checkClause(pc, idx)
					idx++
				}
			}
		}
		c.checkInlines(progs) // decl.go
	}
	c.errs.Sort()
	return c.info, c.errs
}

func (c *checker) errorf(pos token.Pos, tag, format string, args ...any) {
	if !c.final {
		return
	}
	c.errs.Add(pos, tag, format, args...)
}

func (c *checker) collectDecls(p *ast.Program) {
	for _, d := range p.Decls {
		switch d := d.(type) {
		case *ast.PragmaDecl:
			c.pragma(d)
		case *ast.InlineDecl:
			c.inlineDecl(d) // decl.go
			c.inlines[d.Name] = d
		case *ast.VarDecl:
			ds := c.decls()
			ds.collecting = true // report its errors now: it is checked once
			c.declVar(d)
			ds.collecting = false
		case *ast.StructDecl, *ast.EnumDecl, *ast.TypedefDecl, *ast.TranslatorDecl:
			c.collectDecl(d) // decl.go
		case *ast.BadDecl, *ast.ProbeClause:
		case *ast.ProviderDecl:
			// Accepted; used by the USDT toolchain.
		}
	}
}

func (c *checker) pragma(d *ast.PragmaDecl) {
	switch d.Kind {
	case "option":
		for _, a := range d.Args {
			name, val, _ := strings.Cut(a, "=")
			c.info.Options = append(c.info.Options, Option{Name: name, Value: val, Pos: d.PragmaPos})
			switch name {
			case "destructive": // the pragma allows what -w does
				if c.cfg.NoDestructive {
					c.errs.Add(d.PragmaPos, "D_PRAGMA_OPTSET", "failed to set option 'destructive': destructive actions are not allowed in this program")
					continue
				}
				c.cfg.Destructive = true
			case "defaultargs":
				c.cfg.DefaultArgs = true
			}
		}
	case "depends_on":
		c.dependsOn(d) // decl.go
	case "attributes", "binding":
		// dt_pragma_attributes, dt_pragma_binding
		if len(d.Args) < 2 {
			form := "<attributes> <ident>"
			if d.Kind == "binding" {
				form = "\"version\" <ident>"
			}
			c.errs.Add(d.PragmaPos, "D_PRAGMA_MALFORM", "malformed #pragma %s %s", d.Kind, form)
		}
	case "ident", "line", "error", "":
	default:
		c.errs.Add(d.PragmaPos, "D_PRAGMA_INVAL", "invalid control directive: #pragma D %s", d.Kind)
	}
}

func (c *checker) declVar(d *ast.VarDecl) {
	scope := Global
	switch d.Scope {
	case "self":
		scope = Self
	case "this":
		scope = This
	}
	if !c.declOK(d, scope) { // decl.go
		return
	}
	t := c.resolveType(d.Type)
	if t.Func {
		// a function prototype: D takes it as the declaration of an
		// extern (dt_decl.c), which a D program cannot call
		return
	}
	if old := c.vars[scopePrefix(scope)+d.Name]; old != nil && old.decl != nil && old.decl != d {
		c.redeclared(d, old, t) // decl.go
		return
	}
	v := c.lookupVar(scope, d.Name, d.NamePos, true)
	v.Type = t
	v.Declared = true
	v.decl = d
	if t.Kind == Struct && t.Src == nil && !c.complete(t) {
		c.declErr(d.NamePos, "D_DECL_INCOMPLETE", "incomplete struct/union/enum %s: %s", t.Name, d.Name)
		v.Type = nil
		return
	}
	if !c.checkStructVar(d.NamePos, v) { // svar.go
		v.Type = nil
		return
	}
	if d.KeyTypes != nil {
		v.Assoc = true
		for _, kt := range d.KeyTypes {
			v.Keys = append(v.Keys, c.resolveType(kt))
		}
		return
	}
	if t.Kind == Array {
		c.arrayVar(d, v) // decl.go
	}
}

func scopePrefix(s VarScope) string {
	return [...]string{"", "self->", "this->", "@"}[s]
}

// lookupVar finds or creates the variable name of scope s.
func (c *checker) lookupVar(s VarScope, name string, pos token.Pos, create bool) *Var {
	key := scopePrefix(s) + name
	if v, ok := c.vars[key]; ok {
		if create {
			c.defines(v) // order.go
		}
		return v
	}
	if !create {
		return nil
	}
	v := &Var{Scope: s, Name: name, Pos: pos}
	defer c.defines(v)
	switch s {
	case Global:
		v.ID = len(c.info.Globals)
		c.info.Globals = append(c.info.Globals, v)
	case Self:
		v.ID = len(c.info.Selfs)
		c.info.Selfs = append(c.info.Selfs, v)
	case This:
		v.ID = len(c.info.Thiss)
		c.info.Thiss = append(c.info.Thiss, v)
	case Aggregation:
		v.ID = len(c.info.Aggs)
		c.info.Aggs = append(c.info.Aggs, v)
	}
	c.vars[key] = v
	return v
}

// ---------------------------------------------------------------------------
// Clauses

func (c *checker) checkClause(pc *ast.ProbeClause, idx int) {
	var cl *Clause
	if idx < len(c.info.Clauses) {
		cl = c.info.Clauses[idx]
	} else {
		cl = &Clause{Node: pc, Index: idx}
		c.info.Clauses = append(c.info.Clauses, cl)
		c.matchProbes(cl)
	}
	c.clause = cl
	if pc.Pred != nil {
		t := c.expr(pc.Pred)
		// dt_node_is_scalar: a string is an array, not a scalar
		if t != nil && !t.IsInt() {
			c.errorf(pc.Pred.Pos(), "D_PRED_SCALAR", "predicate result must be of scalar type")
		}
	}
	if pc.Body != nil {
		c.stmts(pc.Body.Stmts)
		c.specOrder(pc.Body.Stmts) // spec.go
	}
}

// descError reports a provider's failure to match a probe description
// with DTrace's tag for it: a process without the probes is a description
// that matches none (D_PDESC_ZERO), a process that does not exist one
// that cannot be grabbed (D_PROC_GRAB, dt_pid.c), anything else an
// invalid description.
func (c *checker) descError(pd *ast.ProbeDesc, err error) {
	switch {
	case errors.Is(err, probe.ErrNoProbes):
		c.errs.Add(pd.DescPos, "D_PDESC_ZERO", "probe description %s does not match any probes: %v", pd.Text, err)
	case errors.Is(err, syscall.ESRCH):
		c.errs.Add(pd.DescPos, "D_PROC_GRAB", "%s: failed to grab process: %v", pd.Text, err)
	default:
		c.errs.Add(pd.DescPos, "D_PDESC_INVAL", "%s: %v", pd.Text, err)
	}
}

func (c *checker) matchProbes(cl *Clause) {
	seen := map[uint32]bool{}
	for _, pd := range cl.Node.Probes {
		d := probe.Desc{Provider: pd.Provider, Module: pd.Module, Function: pd.Function, Name: pd.Name}
		if c.cfg.Resolver == nil {
			continue
		}
		ps, err := c.cfg.Resolver.Match(d)
		if errors.Is(err, probe.ErrNoProbes) && c.cfg.ZeroMatches {
			continue // -Z: a process that has none yet may load some
		}
		if err != nil {
			c.descError(pd, err)
			continue
		}
		if len(ps) == 0 && !c.cfg.ZeroMatches {
			c.errs.Add(pd.DescPos, "D_PDESC_ZERO", "probe description %s does not match any probes", pd.Text)
		}
		for _, p := range ps {
			if !seen[p.ID] {
				seen[p.ID] = true
				cl.Probes = append(cl.Probes, p)
			}
		}
	}
	sort.Slice(cl.Probes, func(i, j int) bool { return cl.Probes[i].ID < cl.Probes[j].ID })
	for _, p := range cl.Probes {
		if _, dup := c.probeIndex(p); !dup {
			c.info.Probes = append(c.info.Probes, p)
		}
	}
	c.subjectAndRecord(cl)
	// args[] are typed when every matched probe agrees.
	for i, p := range cl.Probes {
		var ts []*Type
		for _, a := range p.Args {
			if ax := c.xlatedArg(cl, i, len(ts), a); ax != nil {
				ts = append(ts, ax.t) // decl.go
				continue
			}
			at := a.XType
			if at == "" {
				at = a.Type
			}
			if a.Struct != nil {
				ts = append(ts, structPtr(a.Struct))
				continue
			}
			ts = append(ts, c.argType(at))
		}
		if i == 0 {
			cl.Args = ts
			continue
		}
		if len(ts) != len(cl.Args) {
			cl.Args = nil
			break
		}
		for j := range ts {
			if t := mergeArg(cl.Args[j], ts[j]); t != nil {
				cl.Args[j] = t
				continue
			}
			cl.Args = nil
			break
		}
		if cl.Args == nil {
			break
		}
	}
	c.xargsAgree(cl)
}

// sameArg reports whether two probes' args[n] types agree, down to what
// a pointer points to: two providers' structures of one name may hold
// different members (tcp:::send's tcpsinfo_t has the socket's state,
// receive's has none), and a clause typed by one would read the other's
// probe through the wrong layout.
func sameArg(a, b *Type) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.Kind == Pointer && b.Kind == Pointer:
		return sameArg(a.Elem, b.Elem)
	case a.Kind == Struct && b.Kind == Struct:
		if a.Src != nil || b.Src != nil {
			return a.Src == b.Src
		}
		return a == b || (a.Name == b.Name && a.Size == b.Size && a.Union == b.Union)
	}
	return Same(a, b)
}

// mergeArg is the type args[n] has in a clause whose probes give it the
// types a and b: a when they agree; a pointer to a with b's structure among
// its Alts when both point to provider structures of one name; nil when
// they disagree.
func mergeArg(a, b *Type) *Type {
	if sameArg(a, b) {
		return a
	}
	if a.Kind != Pointer || b.Kind != Pointer || a.Elem == nil || b.Elem == nil {
		return nil
	}
	sa, sb := a.Elem, b.Elem
	if sa.Kind != Struct || sb.Kind != Struct || sa.Src == nil || sb.Src == nil || sa.Src.Name != sb.Src.Name {
		return nil
	}
	for _, s := range append([]*probe.Struct{sb.Src}, sb.Alts...) {
		if s != sa.Src && !slices.Contains(sa.Alts, s) {
			cp := *sa
			cp.Alts = append(slices.Clip(sa.Alts), s)
			sa = &cp
		}
	}
	p := *a
	p.Elem = sa
	return &p
}

// subjectAndRecord sets the clause's Subject and Record from its probes.
func (c *checker) subjectAndRecord(cl *Clause) {
	for i, p := range cl.Probes {
		if i == 0 {
			cl.Subject = p.Subject
			if p.Record != nil {
				cl.Record = structPtr(p.Record)
			}
			continue
		}
		if p.Subject != cl.Subject {
			cl.Subject = -1 // mixed: code that needs the thread is an error
		}
		if cl.Record != nil && (p.Record == nil || p.Record.Name != cl.Record.Elem.Name) {
			cl.Record = nil
		}
	}
}

// structPtr is the D type of a pointer to a provider structure.
func structPtr(s *probe.Struct) *Type {
	st := &Type{Kind: Struct, Name: s.Name, Src: s}
	return &Type{Kind: Pointer, Size: 8, Elem: st, Name: s.Name + " *"}
}

func (c *checker) argType(s string) *Type {
	t := c.typeFromString(s)
	if t.Kind == Pointer && t.Elem.Kind == Int && t.Elem.Size == 1 {
		// char * arguments stay addresses: copyinstr() reads them.
		return t
	}
	return t
}

func (c *checker) probeIndex(p *probe.Probe) (int, bool) {
	for i, q := range c.info.Probes {
		if q.ID == p.ID {
			return i, true
		}
	}
	return -1, false
}

// ---------------------------------------------------------------------------
// Statements

func (c *checker) stmts(list []ast.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

func (c *checker) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ExprStmt:
		c.exprStmt(s.X)
	case *ast.BlockStmt:
		c.stmts(s.Stmts)
	case *ast.IfStmt:
		t := c.expr(s.Cond)
		if t != nil && !t.IsInt() {
			// DTrace makes the branches clauses (dt_sugar.c) whose
			// predicate is the condition
			c.errorf(s.Cond.Pos(), "D_PRED_SCALAR", "predicate result must be of scalar type")
		}
		c.stmt(s.Then)
		if s.Else != nil {
			c.stmt(s.Else)
		}
	case *ast.DeclStmt:
		c.declVar(s.Decl)
	case *ast.EmptyStmt, *ast.BadStmt:
	}
}

func (c *checker) exprStmt(e ast.Expr) {
	switch x := ast.Unparen(e).(type) {
	case *ast.AssignExpr:
		c.assign(x)
		return
	case *ast.CallExpr:
		if t := c.call(x, true); t != nil {
			c.info.Types[x] = t // stack() as a statement records its type
		}
		return
	case *ast.AggVar:
		c.errorf(x.AtPos, "D_AGG_NULL", "expression has null effect: @%s", x.Name)
		return
	case *ast.IndexExpr:
		if av, ok := ast.Unparen(x.X).(*ast.AggVar); ok {
			c.errorf(av.AtPos, "D_AGG_NULL", "expression has null effect: @%s", av.Name)
			return
		}
	}
	c.expr(e)
}

// ---------------------------------------------------------------------------
// Constants

// ConstInt evaluates e as an integer constant.
func (c *checker) constInt(e ast.Expr) (int64, bool) {
	if k, ok := c.info.Consts[e]; ok && !k.IsStr {
		return k.Int, true
	}
	switch x := e.(type) {
	case *ast.IntLit:
		return int64(x.Value), true
	case *ast.ParenExpr:
		return c.constInt(x.X)
	case *ast.UnaryExpr:
		v, ok := c.constInt(x.X)
		if !ok {
			return 0, false
		}
		switch x.Op {
		case token.SUB:
			return -v, true
		case token.ADD:
			return v, true
		case token.TILDE:
			return ^v, true
		case token.NOT:
			return b2i(v == 0), true
		}
	case *ast.BinaryExpr:
		a, ok1 := c.constInt(x.X)
		b, ok2 := c.constInt(x.Y)
		if !ok1 || !ok2 {
			return 0, false
		}
		return foldBinary(x.Op, a, b)
	case *ast.MacroVar:
		if v, ok := c.cfg.Macros[x.Name]; ok && !x.Quoted {
			n, err := strconv.ParseInt(v, 0, 64)
			return n, err == nil
		}
	case *ast.CastExpr:
		return c.constInt(x.X)
	case *ast.SizeofExpr:
		if k, ok := c.info.Consts[e]; ok {
			return k.Int, true
		}
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func foldBinary(op token.Kind, a, b int64) (int64, bool) {
	switch op {
	case token.ADD:
		return a + b, true
	case token.SUB:
		return a - b, true
	case token.MUL:
		return a * b, true
	case token.QUO:
		if b == 0 {
			return 0, false
		}
		return a / b, true
	case token.REM:
		if b == 0 {
			return 0, false
		}
		return a % b, true
	case token.SHL:
		return a << uint(b), true
	case token.SHR:
		return a >> uint(b), true
	case token.AND:
		return a & b, true
	case token.OR:
		return a | b, true
	case token.XOR:
		return a ^ b, true
	case token.EQL:
		return b2i(a == b), true
	case token.NEQ:
		return b2i(a != b), true
	case token.LSS:
		return b2i(a < b), true
	case token.LEQ:
		return b2i(a <= b), true
	case token.GTR:
		return b2i(a > b), true
	case token.GEQ:
		return b2i(a >= b), true
	case token.LAND:
		return b2i(a != 0 && b != 0), true
	case token.LOR:
		return b2i(a != 0 || b != 0), true
	case token.LXOR:
		return b2i((a != 0) != (b != 0)), true
	}
	return 0, false
}
