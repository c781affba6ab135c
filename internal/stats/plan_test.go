package stats

import (
	"errors"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// sampleValue is a valid filter value of d.
func sampleValue(d *dim) string {
	switch d.kind {
	case dimInt:
		return "1"
	case dimEnum:
		return d.values[len(d.values)-1].name
	}
	return "sonde"
}

// specsOf lists datasets of b: the statistic, each breakdown, each
// filter, all breakdowns, and all filters with all breakdowns.
func specsOf(b *builtin) []*Spec {
	name := b.stat.Name
	out := []*Spec{{Statistic: name}}
	all := &Spec{Statistic: name}
	filtered := &Spec{Statistic: name}
	for i := range b.dims {
		d := &b.dims[i]
		out = append(out, &Spec{Statistic: name, Breakdowns: []string{d.name}})
		all.Breakdowns = append(all.Breakdowns, d.name)
		if d.kind != dimStack {
			f := analytics.Filter{Breakdown: d.name, Value: sampleValue(d)}
			out = append(out, &Spec{Statistic: name, Filters: []analytics.Filter{f}})
			filtered.Filters = append(filtered.Filters, f)
		}
	}
	filtered.Breakdowns = all.Breakdowns
	return append(out, all, filtered)
}

// aggShape parses a program and returns the key count of every
// assignment to an aggregation, and the aggregations' names.
func aggShape(t *testing.T, src string) (keys []int, names map[string]bool) {
	t.Helper()
	prog, errs := parser.ParseFile("plan", []byte(src), nil)
	if len(errs) > 0 {
		t.Fatalf("the front end refuses:\n%s\n%v", src, errs)
	}
	names = map[string]bool{}
	for _, d := range prog.Decls {
		c, ok := d.(*ast.ProbeClause)
		if !ok {
			continue
		}
		walkStmts(c.Body.Stmts, func(x ast.Expr) {
			if a, ok := x.(*ast.AssignExpr); ok {
				if v, idx := aggOf(a.X); v != nil {
					names[v.Name] = true
					keys = append(keys, len(idxOrNil(idx)))
				}
			}
		})
	}
	return keys, names
}

// compile runs the front end and the code generator on src, without
// loading anything. The tracepoint provider reads tracefs, which needs
// privilege: such programs are compiled by the privileged tests
// (statstest), and only parsed here.
func compile(t *testing.T, src string) {
	t.Helper()
	if strings.Contains(src, "tracepoint:") {
		return
	}
	prog, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: src}}, Quiet: true})
	if err != nil {
		t.Fatalf("does not compile:\n%s\n%s%v", src, prog.Render(err), err)
	}
}

// TestPlanEveryStatistic: every statistic's plans for several datasets are
// D the front end and code generator accept (one aggregation, @a, keyed by
// the breakdowns), or static samplers where the kernel's counters serve.
func TestPlanEveryStatistic(t *testing.T) {
	c := New()
	for _, st := range c.Statistics() {
		b := c.builtins[st.Name]
		if len(st.Breakdowns) != len(b.dims) || st.Description == "" || st.Unit == "" || st.Kind == "" {
			t.Errorf("%s: incomplete %+v", st.Name, st)
		}
		for _, spec := range specsOf(b) {
			p, err := c.Plan(spec)
			if b.d == nil && (b.static == nil || !b.static.serves(spec)) {
				if err == nil {
					t.Errorf("%s: planned, though nothing serves it", spec)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", spec, err)
				continue
			}
			static := b.static != nil && b.static.serves(spec)
			if (p.Static != nil) != static || (p.Program != "") == static || p.Stat.Static != static {
				t.Errorf("%s: static %v, program %q, want static %v", spec, p.Static != nil, p.Program, static)
			}
			if (p.Scale != nil) != (st.Kind == analytics.Distribution) {
				t.Errorf("%s: scale %v for a %s", spec, p.Scale != nil, st.Kind)
			}
			if static {
				continue
			}
			keys, names := aggShape(t, p.Program)
			if len(names) != 1 || !names["a"] || len(keys) == 0 {
				t.Errorf("%s: aggregations %v:\n%s", spec, names, p.Program)
			}
			for _, k := range keys {
				if k != len(spec.Breakdowns) {
					t.Errorf("%s: %d keys, want %d:\n%s", spec, k, len(spec.Breakdowns), p.Program)
				}
			}
			for _, f := range spec.Filters {
				if d := b.dim(f.Breakdown); d.kind != dimEnum && !strings.Contains(p.Program, filterPred(d, f.Value)) {
					t.Errorf("%s: no predicate %q:\n%s", spec, filterPred(d, f.Value), p.Program)
				}
			}
			compile(t, p.Program)
		}
	}
}

// TestPlanChoosesStatic: the kernel's counters serve what they can, and
// D the rest.
func TestPlanChoosesStatic(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		spec   string
		static bool
	}{
		{"io.ops", true}, {"io.ops[op]", true}, {"io.ops[device=vda][op]", true},
		{"io.ops[execname]", false}, {"io.ops[op][execname=dd]", false}, {"io.bytes[pid=1]", false},
		{"cpu.utilization[mode][cpu]", true}, {"nic.kilobytes[direction=in][device]", true},
		{"tcp.ops[direction]", true}, {"syscall.ops", false},
	} {
		s, err := Parse(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Plan(s)
		if err != nil {
			t.Errorf("%s: %v", tc.spec, err)
			continue
		}
		if (p.Static != nil) != tc.static {
			t.Errorf("%s: static %v, want %v", tc.spec, p.Static != nil, tc.static)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	c := New()
	for _, tc := range []struct{ spec, msg string }{
		{"nosuch.ops", `unknown statistic "nosuch.ops"`},
		{"syscall.ops[device]", `syscall.ops has no breakdown "device" (it has execname, pid, name, cpu)`},
		{"syscall.ops[device=x]", `no breakdown "device" to filter by`},
		{"syscall.ops[pid=x]", "pid is a decimal integer"},
		{"syscall.ops[pid=-1]", "pid is a decimal integer"},
		{"syscall.ops[pid=0x10]", "pid is a decimal integer"},
		{"syscall.ops[pid=01]", "pid is a decimal integer"},
		{`syscall.ops[pid="1 || 1"]`, "pid is a decimal integer"},
		{"syscall.ops[pid=99999999]", "larger than any pid"},
		{"syscall.ops[cpu=1e3]", "cpu is a decimal integer"},
		{"syscall.ops[execname=abcdefghijklmnop]", "longer than any execname (15 bytes)"},
		{"io.ops[op=append]", "op is one of read, write"},
		{"cpu.utilization[execname]", "no breakdown \"execname\""},
		{"cpu.utilization[mode=busy]", "mode is one of user, kernel, idle, steal"},
		{"offcpu.time[ustack=x]", "a breakdown only"},
		{"tcp.states[state=established]", "state is one of ESTABLISHED"},
	} {
		s, err := Parse(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Plan(s)
		var ae *analytics.Error
		if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, tc.msg) {
			t.Errorf("%s: %v, want a 400 with %q", tc.spec, err, tc.msg)
		}
	}
	// a Spec made by hand is checked as much as a parsed one
	for _, s := range []*Spec{
		{Statistic: "syscall.ops", Breakdowns: []string{"name", "name"}},
		{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: "a\x00b"}}},
		{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "pid", Value: "1"}, {Breakdown: "pid", Value: "2"}}},
	} {
		if _, err := c.Plan(s); err == nil {
			t.Errorf("%+v: planned", s)
		}
	}
}

// TestFilterInjection: a filter's value, whatever its bytes, is one D
// string constant equal to it: it can neither break the program nor add
// D to it.
func TestFilterInjection(t *testing.T) {
	c := New()
	for _, v := range []string{
		`"/ { exit(0); } syscall:::entry /"`,
		`dd" || "1" == "1`,
		`a\`, `a\"`, `\\\"`, "*/ BEGIN { exit(0); } /*",
		"new\nline", "tab\there", "\x7f\xff\x01", "ü", `%s%d`, "$1", "$$1", "@a", "sh'",
	} {
		if len(v) > 15 {
			v = v[:15]
		}
		spec := &Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: v}}, Breakdowns: []string{"name"}}
		p, err := c.Plan(spec)
		if err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		prog, errs := parser.ParseFile("x", []byte(p.Program), nil)
		if len(errs) > 0 {
			t.Errorf("%q breaks the program:\n%s\n%v", v, p.Program, errs)
			continue
		}
		var clauses []*ast.ProbeClause
		for _, d := range prog.Decls {
			if c, ok := d.(*ast.ProbeClause); ok {
				clauses = append(clauses, c)
			}
		}
		if len(clauses) != 1 || len(clauses[0].Body.Stmts) != 1 {
			t.Errorf("%q: %d clauses:\n%s", v, len(clauses), p.Program)
			continue
		}
		be, ok := ast.Unparen(clauses[0].Pred).(*ast.BinaryExpr)
		lit, ok2 := func() (*ast.StringLit, bool) {
			if !ok {
				return nil, false
			}
			l, ok := be.Y.(*ast.StringLit)
			return l, ok
		}()
		if !ok2 || lit.Value != v {
			t.Errorf("%q: the predicate is not execname == that value:\n%s", v, p.Program)
		}
		compile(t, p.Program)
	}
}

func TestDString(t *testing.T) {
	for in, want := range map[string]string{
		"dd": `"dd"`, `a"b`: `"a\"b"`, `a\b`: `"a\\b"`, "a\nb": `"a\012b"`, "\xff": `"\377"`, "": `""`,
	} {
		if got := DString(in); got != want {
			t.Errorf("DString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestLatencyScale: the buckets tile [0, 10^11) with no gap, each at most
// half its lower bound wide from 10 ns up, and Scale agrees with the
// kernel's bucketing (value.LlquantizeLayout.Bucket).
func TestLatencyScale(t *testing.T) {
	scale, err := scaleOf(value.Llquantize, LatencyScale)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := value.LlquantizeOf(LatencyScale)
	n := q.Buckets()
	if n != 191 {
		t.Errorf("%d buckets, want 191 (the documented count)", n)
	}
	prevMax := int64(0)
	for i := 0; i < n; i++ {
		lo, hi := scale(i)
		if lo != prevMax {
			t.Fatalf("bucket %d starts at %d, the last ended at %d", i, lo, prevMax)
		}
		if q.Bucket(lo) != i || hi != analytics.Unbounded && q.Bucket(hi-1) != i {
			t.Errorf("bucket %d [%d, %d): the kernel puts %d in %d", i, lo, hi, lo, q.Bucket(lo))
		}
		if lo >= 10 && hi != analytics.Unbounded && (hi-lo)*2 > lo {
			t.Errorf("bucket %d [%d, %d) is wider than half its bound", i, lo, hi)
		}
		if i == n-1 && (hi != analytics.Unbounded || lo != 100_000_000_000) {
			t.Errorf("last bucket [%d, %d), want [1e11, open)", lo, hi)
		}
		prevMax = hi
	}
	if lo, hi := scale(n); lo != 0 || hi != 0 {
		t.Errorf("scale past the end: %d, %d", lo, hi)
	}
}

// TestDefaultsAreStaticOrListed: every default plans, and all but
// syscall.ops (which the kernel does not count) are static.
func TestDefaults(t *testing.T) {
	c := New()
	for _, d := range Defaults() {
		s, err := Parse(d)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Plan(s)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if (p.Static == nil) != (d == "syscall.ops") {
			t.Errorf("%s: static %v", d, p.Static != nil)
		}
	}
}
