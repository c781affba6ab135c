package dtrace_test

import (
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/dtrace"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		d    provider.Desc
		want string
	}{
		{provider.Desc{Name: "BEGIN"}, "BEGIN"},
		{provider.Desc{Provider: "dtrace", Name: "END"}, "END"},
		{provider.Desc{Provider: "dtrace"}, "BEGIN END ERROR"},
		{provider.Desc{}, "BEGIN END ERROR"},
		{provider.Desc{Name: "E*"}, "END ERROR"},
		{provider.Desc{Provider: "d*", Name: "ERROR"}, "ERROR"},
		{provider.Desc{Name: "begin"}, ""},
		{provider.Desc{Provider: "syscall", Name: "BEGIN"}, ""},
		{provider.Desc{Function: "main", Name: "BEGIN"}, ""},
	} {
		var got []string
		for _, p := range providertest.Probes(t, dtrace.Provider{}, c.d) {
			got = append(got, p.Name)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.d, got, c.want)
		}
	}
}

// Local IDs 0, 1, 2 (global 1, 2, 3), each its own run hook; ERROR's
// arguments are DTrace's.
func TestProbes(t *testing.T) {
	ps := providertest.Probes(t, dtrace.Provider{}, provider.Desc{})
	for i, p := range ps {
		if p.ID != uint32(i) || p.ID >= dtrace.NumLocal() {
			t.Errorf("%s: local ID %d, want %d (< %d)", p.FullName(), p.ID, i, dtrace.NumLocal())
		}
		if p.Hook != (provider.Hook{Kind: provider.HookRun, Name: p.Name}) {
			t.Errorf("%s: hook %s", p.FullName(), p.Hook)
		}
	}
	var args []string
	for _, a := range ps[2].Args {
		args = append(args, strings.TrimSpace(a.Type+" "+a.Name))
	}
	if got := strings.Join(args, ", "); got != "uint64_t, uint64_t epid, uint64_t index, uint64_t offset, uint64_t fault, uint64_t addr" {
		t.Errorf("ERROR args: %s", got)
	}
	if ps[0].Args != nil || ps[1].Args != nil {
		t.Errorf("BEGIN and END have arguments: %v %v", ps[0].Args, ps[1].Args)
	}
}

// Run as the consumer runs them: ERROR gets arg0..arg5 from the run
// context, BEGIN zeros whatever it is given.
func TestPrologueRun(t *testing.T) {
	var all provider.Needs
	for i := range all.Args {
		all.Args[i] = true
	}
	ps := providertest.Probes(t, dtrace.Provider{}, provider.Desc{})
	in := []uint64{0, 7, 2, 0xffffffffffffffff, 1, 0xdead}
	for _, p := range ps {
		l := runtimetest.Load(t, runtimetest.Spec{Provider: dtrace.Provider{}, Hook: p.Hook, Probes: []*provider.Probe{p}, Needs: all})
		l.Run(t, in...)
		fs := l.Firings(t)
		if len(fs) != 1 {
			t.Fatalf("%s: %d firings of one run", p.Name, len(fs))
		}
		f := fs[0]
		if f.ID != uint64(p.ID) || f.Errno != 0 {
			t.Errorf("%s: probe ID %d errno %d", p.Name, f.ID, f.Errno)
		}
		for i := 0; i < 6; i++ {
			want := uint64(0)
			if p.Name == "ERROR" {
				want = in[i]
			}
			if f.Args[i] != want {
				t.Errorf("%s: arg%d = %#x, want %#x", p.Name, i, f.Args[i], want)
			}
		}
	}
}
