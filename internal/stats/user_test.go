package stats

import (
	"errors"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
)

func TestDefine(t *testing.T) {
	c := New()
	st, err := c.Define("http.requests", "HTTP requests", `http*:::request-start { @[args[1]->hri_uri, execname] = count(); }`)
	if err != nil {
		t.Fatal(err)
	}
	if !st.User || st.Kind != analytics.Counter || len(st.Breakdowns) != 2 || st.Breakdowns[0].Name != "hri_uri" ||
		st.Breakdowns[1].Name != "execname" || st.Description != "HTTP requests" {
		t.Errorf("statistic %+v", st)
	}
	found := false
	for _, s := range c.Statistics() {
		found = found || s.Name == "http.requests"
	}
	if !found {
		t.Error("the catalogue does not list the new statistic")
	}
	if _, err := c.Define("http.requests", "", "BEGIN { @ = count(); }"); !isStatus(err, 409) {
		t.Errorf("redefined: %v", err)
	}
	if _, err := c.Define("syscall.ops", "", "BEGIN { @ = count(); }"); !isStatus(err, 409) {
		t.Errorf("a built-in redefined: %v", err)
	}
	st, err = c.Define("py.calls", "", `python*:::function-entry { @calls[copyinstr(arg1), args[0], arg2 + 1] = llquantize(arg2, 10, 0, 6, 20); }`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range st.Breakdowns {
		names = append(names, b.Name)
	}
	if st.Kind != analytics.Distribution || strings.Join(names, " ") != "copyinstr arg0 key2" {
		t.Errorf("statistic %+v", st)
	}
}

func isStatus(err error, status int) bool {
	var ae *analytics.Error
	return errors.As(err, &ae) && ae.Status == status
}

func TestDefineErrors(t *testing.T) {
	c := New()
	for _, tc := range []struct{ name, src, msg string }{
		{"bad name", "BEGIN { @ = count(); }", "byte 4: ' '"},
		{"x", "BEGIN { @ = count() }}", "x:1:"},
		{"x", "BEGIN { trace(1); }", "fills no aggregation"},
		{"x", "BEGIN { @a = count(); @b = count(); }", "one aggregation: @a and @b"},
		{"x", "BEGIN { @a = avg(1); }", "avg(): a statistic is count(), sum()"},
		{"x", "BEGIN { @a = max(1); }", "max()"},
		{"x", "BEGIN { @a = quantize(1); }", "quantize()"},
		{"x", "BEGIN { @a = count(); printa(@a); }", "cannot use printa()"},
		{"x", "BEGIN { @a = count(); clear(@a); }", "cannot use clear()"},
		{"x", "BEGIN { @a = count(); exit(0); }", "cannot use exit()"},
		{"x", "BEGIN { @a[1] = count(); } END { @a[1, 2] = count(); }", "the same keys"},
		{"x", "BEGIN { @a = count(); } END { @a = sum(1); }", "the same function"},
		{"x", "BEGIN { @a = llquantize(1, 10, 0, 6, x); }", "an integer constant"},
		{"x", "BEGIN { @a = llquantize(1, 10, 6, 0, 20); }", "invalid llquantize() parameters"},
		{"x", "BEGIN { @a = count(); x = @a; }", "@a is used other than by assigning it"},
	} {
		_, err := c.Define(tc.name, "", tc.src)
		var ae *analytics.Error
		if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, tc.msg) {
			t.Errorf("Define(%q, %q) = %v, want a 400 with %q", tc.name, tc.src, err, tc.msg)
		}
	}
}

// TestUserPlan: a dataset of a user statistic rewrites its D: @a keyed by
// the breakdowns asked, the filters conditions around the assignment; the
// result compiles.
func TestUserPlan(t *testing.T) {
	c := New()
	src := `syscall::read:entry,syscall::write:entry /pid != 1/ { this->n = probefunc; @calls[execname, this->n, arg0] = count(); }
syscall::close:entry { this->n = probefunc; @calls[execname, this->n, arg0] = count(); }`
	if _, err := c.Define("my.calls", "", src); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"my.calls", []string{"@a = count()", "@a = count()"}},
		{"my.calls[n][execname]", []string{"@a[this->n, execname] = count()"}},
		{`my.calls[execname="d\"d"][arg0]`, []string{`if (((execname) == "d\"d")) { @a[arg0] = count(); }`}},
		{`my.calls[arg0=3][n=read]`, []string{`if (((arg0) == 3) && ((this->n) == "read")) { @a = count(); }`}},
		{`my.calls[execname=42]`, []string{`(execname) == "42"`}},
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
		for _, w := range tc.want {
			if !strings.Contains(p.Program, w) {
				t.Errorf("%s: no %q in\n%s", tc.spec, w, p.Program)
			}
		}
		if strings.Contains(p.Program, "@calls") || !strings.Contains(p.Program, "pid != 1") {
			t.Errorf("%s:\n%s", tc.spec, p.Program)
		}
		keys, names := aggShape(t, p.Program)
		if len(names) != 1 || !names["a"] || len(keys) != 2 {
			t.Errorf("%s: %v %v", tc.spec, names, keys)
		}
		compile(t, p.Program)
	}
	for _, tc := range []struct{ spec, msg string }{
		{"my.calls[uri]", `no breakdown "uri" (it has execname, n, arg0)`},
		{"my.calls[uri=x]", `no breakdown "uri" to filter by`},
	} {
		s, _ := Parse(tc.spec)
		if _, err := c.Plan(s); !isStatus(err, 400) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %q", tc.spec, err, tc.msg)
		}
	}
	// a distribution's scale is its own
	if _, err := c.Define("my.sizes", "", "syscall::read:return { @ = lquantize(arg0, 0, 100, 10); }"); err != nil {
		t.Fatal(err)
	}
	p, err := c.Plan(&Spec{Statistic: "my.sizes"})
	if err != nil || p.Scale == nil {
		t.Fatalf("%v %v", p, err)
	}
	if lo, hi := p.Scale(1); lo != 0 || hi != 10 {
		t.Errorf("lquantize bucket 1: [%d, %d), want [0, 10)", lo, hi)
	}
	if lo, hi := p.Scale(11); lo != 100 || hi != analytics.Unbounded {
		t.Errorf("lquantize last bucket: [%d, %d), want [100, open)", lo, hi)
	}
	compile(t, p.Program)
	if err := c.Undefine("my.sizes"); err != nil {
		t.Error(err)
	}
	if _, err := c.Plan(&Spec{Statistic: "my.sizes"}); !isStatus(err, 400) {
		t.Errorf("planned after Undefine: %v", err)
	}
}
