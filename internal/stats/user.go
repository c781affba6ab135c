package stats

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/value"
)

// userStat is a statistic a user defined in D.
type userStat struct {
	stat analytics.Statistic
	src  string
	// sites are the aggregating assignments (one or more clauses fill
	// the one aggregation), keys the key expressions' texts (the same
	// in every site), strKey whether a key is known to be a string.
	sites  []site
	keys   []string
	strKey []bool
	params value.AggParams
	fn     value.AggFunc
}

// site is one assignment to the aggregation: the byte ranges of its left
// side (@name[keys]) and its right side (the aggregating call) in the
// source, and its keys' texts.
type site struct {
	lhsStart, lhsEnd int
	rhsStart, rhsEnd int
	keys             []string
}

// forbidden are the actions a user statistic may not use: they would
// print, clear or stop the aggregation the agent reads each second,
// or stop the agent's session.
var forbidden = map[string]bool{"printa": true, "clear": true, "trunc": true, "normalize": true, "denormalize": true,
	"exit": true, "setopt": true}

// Define adds a user statistic from D: one clause (or several) filling
// one aggregation, whose keys are its breakdowns (named by the
// aggregation's key expressions, or key0, key1...). The D is checked by the
// caller's compiler when a dataset of it is planned and started; Define
// parses it and checks its shape: exactly one aggregation, assigned with
// count(), sum(), lquantize() or llquantize() (what the agent's
// per-second rows hold), the same keys everywhere,
// and no printa(), clear(), trunc(), exit()... A name taken is a 409.
func (c *Catalogue) Define(name, description, source string) (analytics.Statistic, error) {
	if err := checkStatName(name); err != nil {
		return analytics.Statistic{}, err
	}
	u, err := parseUser(name, source)
	if err != nil {
		return analytics.Statistic{}, err
	}
	u.stat.Description = description
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.builtins[name] != nil || c.users[name] != nil {
		return analytics.Statistic{}, &analytics.Error{Status: http.StatusConflict, Message: fmt.Sprintf("statistic %q exists", name)}
	}
	c.users[name] = u
	return u.stat, nil
}

// Undefine removes a user statistic (a 404 for a name that is not one).
func (c *Catalogue) Undefine(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users[name] == nil {
		return &analytics.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no user statistic %q", name)}
	}
	delete(c.users, name)
	return nil
}

func checkStatName(name string) error {
	if name == "" || len(name) > 128 {
		return badRequest("a statistic's name has 1 to 128 bytes")
	}
	for i := 0; i < len(name); i++ {
		if !isStatByte(name[i]) {
			return badRequest("statistic %q: byte %d: %s: a name has letters, digits, '.', '_' and '-'", name, i+1, quoteByte(name[i]))
		}
	}
	return nil
}

// parseUser parses source and finds its aggregation.
func parseUser(name, source string) (*userStat, error) {
	file := "statistic " + name
	prog, errs := parser.ParseFile(file, []byte(source), nil)
	if len(errs) > 0 {
		var b strings.Builder
		for _, e := range errs {
			b.WriteString(diag.Render(e, diag.Sources{file: source}, false))
		}
		return nil, badRequest("%s", strings.TrimRight(b.String(), "\n"))
	}
	u := &userStat{src: source, stat: analytics.Statistic{Name: name, User: true, Source: source}}
	agg := ""
	var fail error
	failf := func(pos token.Pos, format string, args ...any) {
		if fail == nil {
			e := &diag.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
			fail = badRequest("%s", strings.TrimRight(diag.Render(e, diag.Sources{file: source}, false), "\n"))
		}
	}
	for _, decl := range prog.Decls {
		c, ok := decl.(*ast.ProbeClause)
		if !ok || c.Body == nil {
			continue
		}
		walkStmts(c.Body.Stmts, func(x ast.Expr) {
			if call, ok := x.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && forbidden[id.Name] {
					failf(id.NamePos, "a statistic cannot use %s(): the agent reads its aggregation every second", id.Name)
				}
			}
			a, ok := x.(*ast.AssignExpr)
			var v *ast.AggVar
			var idx *ast.IndexExpr
			if ok {
				v, idx = aggOf(a.X)
			}
			if v == nil {
				if av, ok := x.(*ast.AggVar); ok && !u.isSite(av.AtPos.Offset) {
					failf(av.AtPos, "@%s is used other than by assigning it", av.Name)
				}
				return
			}
			if agg != "" && v.Name != agg {
				failf(v.AtPos, "a statistic has one aggregation: @%s and @%s", agg, v.Name)
				return
			}
			agg = v.Name
			s, err := u.site(a, v, idx, source)
			if err != nil {
				failf(v.AtPos, "%v", err)
				return
			}
			u.sites = append(u.sites, s)
		})
	}
	if fail != nil {
		return nil, fail
	}
	if len(u.sites) == 0 {
		return nil, badRequest("statistic %q: the D fills no aggregation (@[key] = count(); for instance)", name)
	}
	u.stat.Breakdowns = keyNames(u.keys)
	if u.fn == value.Count || u.fn == value.Sum {
		u.stat.Kind, u.stat.Unit = analytics.Counter, "per second"
	} else {
		u.stat.Kind, u.stat.Unit = analytics.Distribution, "events per bucket per second"
	}
	return u, nil
}

func (u *userStat) isSite(off int) bool {
	for _, s := range u.sites {
		if s.lhsStart == off {
			return true
		}
	}
	return false
}

// aggOf returns the aggregation x assigns: @a or @a[keys].
func aggOf(x ast.Expr) (*ast.AggVar, *ast.IndexExpr) {
	switch x := x.(type) {
	case *ast.AggVar:
		return x, nil
	case *ast.IndexExpr:
		if v, ok := x.X.(*ast.AggVar); ok {
			return v, x
		}
	}
	return nil, nil
}

// site checks one assignment to the aggregation.
func (u *userStat) site(a *ast.AssignExpr, v *ast.AggVar, idx *ast.IndexExpr, src string) (site, error) {
	call, ok := a.Y.(*ast.CallExpr)
	fn, _ := call.Fun.(*ast.Ident)
	if !ok || fn == nil || a.Op != token.ASSIGN {
		return site{}, fmt.Errorf("an aggregation is assigned an aggregating function (count(), sum()...)")
	}
	s := site{lhsStart: v.AtPos.Offset, lhsEnd: v.AtPos.Offset + 1 + len(v.Name), rhsStart: call.Pos().Offset, rhsEnd: call.Rparen.Offset + 1}
	if idx != nil {
		s.lhsEnd = idx.Rbrack.Offset + 1
		for i, k := range idx.Indices {
			end := idx.Rbrack.Offset
			if i+1 < len(idx.Indices) {
				end = idx.Indices[i+1].Pos().Offset
			}
			text := strings.TrimSpace(src[k.Pos().Offset:end])
			text = strings.TrimSpace(strings.TrimSuffix(text, ","))
			s.keys = append(s.keys, text)
		}
	}
	var f value.AggFunc
	var p value.AggParams
	switch fn.Name {
	case "count":
		f = value.Count
	case "sum":
		f = value.Sum
	case "llquantize", "lquantize":
		f = value.Llquantize
		n := []*int64{&p.Factor, &p.Low, &p.High, &p.Steps}
		if fn.Name == "lquantize" {
			f, n = value.Lquantize, []*int64{&p.Base, &p.Limit, &p.Step}
			p.Step = 1
		}
		args := call.Args[1:]
		if len(args) > len(n) || fn.Name == "llquantize" && len(args) != len(n) || fn.Name == "lquantize" && len(args) < 2 {
			return site{}, fmt.Errorf("%s(): wrong number of parameters", fn.Name)
		}
		for i, x := range args {
			k, err := intConst(x)
			if err != nil {
				return site{}, fmt.Errorf("%s(): parameter %d: %w", fn.Name, i+2, err)
			}
			*n[i] = k
		}
		if _, err := scaleOf(f, p); err != nil {
			return site{}, err
		}
	default:
		return site{}, fmt.Errorf("%s(): a statistic is count(), sum(), lquantize() or llquantize(): what a dataset's per-second rows hold", fn.Name)
	}
	if len(u.sites) == 0 {
		u.keys, u.fn, u.params = s.keys, f, p
		u.strKey = make([]bool, len(s.keys))
		for i, k := range idxOrNil(idx) {
			u.strKey[i] = isStringExpr(k)
		}
		return s, nil
	}
	if f != u.fn || p != u.params {
		return site{}, fmt.Errorf("every clause fills the aggregation with the same function and parameters")
	}
	if strings.Join(s.keys, "\x00") != strings.Join(u.keys, "\x00") {
		return site{}, fmt.Errorf("every clause fills the aggregation with the same keys (%s)", strings.Join(u.keys, ", "))
	}
	return s, nil
}

func idxOrNil(idx *ast.IndexExpr) []ast.Expr {
	if idx == nil {
		return nil
	}
	return idx.Indices
}

func intConst(x ast.Expr) (int64, error) {
	neg := false
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, x = true, u.X
	}
	lit, ok := ast.Unparen(x).(*ast.IntLit)
	if !ok || lit.Value > 1<<62 {
		return 0, fmt.Errorf("an integer constant is expected")
	}
	if neg {
		return -int64(lit.Value), nil
	}
	return int64(lit.Value), nil
}

// stringBuiltins are the variables and functions whose value is a string:
// a filter on a key made of one compares as a string even when the value
// looks like a number.
var stringBuiltins = map[string]bool{"execname": true, "probefunc": true, "probemod": true, "probename": true,
	"probeprov": true, "zonename": true, "cwd": true, "root": true, "copyinstr": true, "stringof": true,
	"strjoin": true, "substr": true, "basename": true, "dirname": true, "lltostr": true, "inet_ntoa": true,
	"inet_ntoa6": true, "inet_ntop": true, "toupper": true, "tolower": true, "strtok": true}

func isStringExpr(x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return stringBuiltins[x.Name]
	case *ast.StringLit, *ast.StringofExpr:
		return true
	case *ast.CallExpr:
		id, ok := x.Fun.(*ast.Ident)
		return ok && stringBuiltins[id.Name]
	}
	return false
}

// keyNames names the breakdowns of a user statistic by its keys: a
// variable's or a member's name (execname, hri_uri), a function's
// (ustack), else key0, key1...; a name taken is suffixed by the key's
// position.
func keyNames(keys []string) []analytics.Breakdown {
	var out []analytics.Breakdown
	seen := map[string]bool{}
	for i, k := range keys {
		n := keyName(k)
		if n == "" || seen[n] {
			n = "key" + strconv.Itoa(i)
		}
		seen[n] = true
		out = append(out, analytics.Breakdown{Name: n, Description: k})
	}
	return out
}

// keyName is the last identifier of a key expression when the
// expression is a name, a member or a call ("args[1]->hri_uri" gives
// hri_uri, "ustack()" ustack, "execname" execname), else "".
func keyName(k string) string {
	x, errs := parser.ParseExpr(k)
	if len(errs) > 0 {
		return ""
	}
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel
	case *ast.ThisVar:
		return x.Name
	case *ast.SelfVar:
		return x.Name
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok {
			return id.Name
		}
	case *ast.IndexExpr:
		if id, ok := x.X.(*ast.Ident); ok && id.Name == "args" && len(x.Indices) == 1 {
			if lit, ok := x.Indices[0].(*ast.IntLit); ok {
				return "arg" + strconv.FormatUint(lit.Value, 10)
			}
		}
	}
	return ""
}

// walkStmts calls f for every expression in stmts.
func walkStmts(stmts []ast.Stmt, f func(ast.Expr)) {
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.ExprStmt:
			ast.Inspect(st.X, func(x ast.Expr) bool { f(x); return true })
		case *ast.BlockStmt:
			walkStmts(st.Stmts, f)
		case *ast.IfStmt:
			ast.Inspect(st.Cond, func(x ast.Expr) bool { f(x); return true })
			walkStmts([]ast.Stmt{st.Then}, f)
			if st.Else != nil {
				walkStmts([]ast.Stmt{st.Else}, f)
			}
		}
	}
}

// plan writes a dataset of the user statistic: the source with each
// assignment's aggregation renamed @a and keyed by the breakdowns asked
// (in their order; keys not asked are left out, so the kernel sums over
// them), and the filters a condition around each assignment, compiled
// into the kernel like a predicate but evaluated where the keys are (a
// key may be a this-> variable the clause sets first).
func (u *userStat) plan(spec *Spec) (*Plan, error) {
	index := map[string]int{}
	for i, b := range u.stat.Breakdowns {
		index[b.Name] = i
	}
	names := func() string {
		var n []string
		for _, b := range u.stat.Breakdowns {
			n = append(n, b.Name)
		}
		if len(n) == 0 {
			return "none"
		}
		return strings.Join(n, ", ")
	}
	var keys []string
	seen := map[string]bool{}
	for _, b := range spec.Breakdowns {
		i, ok := index[b]
		if !ok {
			return nil, badRequest("%s has no breakdown %q (it has %s)", spec.Statistic, b, names())
		}
		if seen[b] {
			return nil, badRequest("%s: breakdown %q given twice", spec.Statistic, b)
		}
		seen[b] = true
		keys = append(keys, u.keys[i])
	}
	var preds []string
	seen = map[string]bool{}
	for _, f := range spec.Filters {
		i, ok := index[f.Breakdown]
		if !ok {
			return nil, badRequest("%s has no breakdown %q to filter by (it has %s)", spec.Statistic, f.Breakdown, names())
		}
		if seen[f.Breakdown] {
			return nil, badRequest("%s: filter on %q given twice", spec.Statistic, f.Breakdown)
		}
		seen[f.Breakdown] = true
		if strings.IndexByte(f.Value, 0) >= 0 {
			return nil, badRequest("%s: %s: a value cannot hold a NUL byte", spec.Statistic, f.Breakdown)
		}
		preds = append(preds, userFilter(u.keys[i], u.strKey[i], f.Value))
	}
	lhs := "@a"
	if len(keys) > 0 {
		lhs += "[" + strings.Join(keys, ", ") + "]"
	}
	sites := append([]site(nil), u.sites...)
	sort.Slice(sites, func(i, j int) bool { return sites[i].lhsStart > sites[j].lhsStart })
	src := u.src
	for _, st := range sites { // from the end: offsets stay right
		stmt := lhs + " = " + src[st.rhsStart:st.rhsEnd]
		if len(preds) > 0 {
			stmt = "if (" + and(preds...) + ") { " + stmt + "; }"
		}
		src = src[:st.lhsStart] + stmt + src[st.rhsEnd:]
	}
	p := &Plan{Spec: spec, Stat: u.stat, Program: src}
	if u.stat.Kind == analytics.Distribution {
		p.Scale, _ = scaleOf(u.fn, u.params)
	}
	return p, nil
}

// userFilter is the predicate of a filter on a user statistic's key k: a
// string comparison, or an integer one when the value is a decimal
// integer and k is not known to be a string (a string key compared with
// a number is a compile error, never a wrong count).
func userFilter(k string, str bool, v string) string {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !str && strconv.FormatInt(n, 10) == v {
		return "(" + k + ") == " + v
	}
	return "(" + k + ") == " + DString(v)
}
