// Package checktest holds what the tests of the checker and of the code
// generator share: a probe resolver that needs no kernel, and the macro
// variables their test programs use.
package checktest

import (
	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/dtrace"
	"github.com/sonde-trace/sonde/internal/provider/profile"
	"github.com/sonde-trace/sonde/internal/provider/syscall"
)

// Resolver publishes a few probes with typed arguments, so that programs
// check and compile without the kernel.
var Resolver = newResolver()

type resolver struct {
	probes []*provider.Probe
	owners map[string]provider.Provider
}

func newResolver() *resolver {
	dt, sc, pf := dtrace.Provider{}, syscall.Provider{}, &profile.Provider{}
	args := func(types ...string) []provider.Arg {
		var out []provider.Arg
		for _, t := range types {
			out = append(out, provider.Arg{Type: t})
		}
		return out
	}
	run := func(id uint32, name string, a []provider.Arg) *provider.Probe {
		return &provider.Probe{ID: id, Provider: "dtrace", Name: name, Args: a,
			Hook: provider.Hook{Kind: provider.HookRun, Name: name}}
	}
	sys := func(id uint32, nr int64, fn, name string, a []provider.Arg) *provider.Probe {
		hook := "sys_enter"
		if name == "return" {
			hook = "sys_exit"
		}
		return &provider.Probe{ID: id, Provider: "syscall", Function: fn, Name: name, Args: a, Sel: nr,
			Hook: provider.Hook{Kind: provider.HookRawTP, Name: hook}}
	}
	prof := func(id uint32, name string, period uint64, all bool) *provider.Probe {
		return &provider.Probe{ID: id, Provider: "profile", Name: name, Args: args("uintptr_t", "uintptr_t"),
			Hook: provider.Hook{Kind: provider.HookPerf, Name: name, Period: period, AllCPU: all}}
	}
	u64 := "uint64_t"
	owners := map[string]provider.Provider{"dtrace": dt, "syscall": sc, "profile": pf, "xlt": dt}
	return &resolver{owners: owners, probes: []*provider.Probe{
		run(1, "BEGIN", nil),
		run(2, "END", nil),
		run(3, "ERROR", args(u64, u64, u64, u64, u64, u64)),
		// IDs follow the syscall provider's rule: base + 2*nr (+1 for return).
		sys(4, 0, "read", "entry", args("int", "char *", "size_t")),
		sys(5, 0, "read", "return", args("ssize_t", "ssize_t")),
		sys(6, 1, "write", "entry", args("unsigned int", "const char *", "size_t")),
		sys(7, 1, "write", "return", args("ssize_t", "ssize_t")),
		sys(8, 2, "open", "entry", args("const char *", "int", "umode_t")),
		sys(9, 2, "open", "return", args("long", "long")),
		prof(100, "profile-997", 1000000000/997, true),
		prof(101, "tick-1sec", 1e9, false),
		// A probe whose provider translates its arguments, as USDT
		// probes with a translated argument list do (provider xlt {
		// probe req(struct req *, char *, int, uint16_t) :
		// (reqinfo_t *, string, int64_t, conn_t *); }): the test programs
		// declare struct req, reqinfo_t and the translator.
		{ID: 200, Provider: "xlt", Name: "req", Hook: provider.Hook{Kind: provider.HookRun, Name: "xlt"},
			Args: []provider.Arg{
				{Type: "struct req *", XType: "reqinfo_t *", Native: 0},
				{Type: "char *", XType: "string", Native: 1},
				{Type: "uint16_t", XType: "int64_t", Native: 3},
				{Type: "struct req *", XType: "conn_t *", Native: 0},
			}},
	}}
}

// Match implements check.Resolver.
func (r *resolver) Match(d provider.Desc) ([]*provider.Probe, error) {
	var out []*provider.Probe
	for _, p := range r.probes {
		if d.Matches(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Owner implements provider.Owners.
func (r *resolver) Owner(p *provider.Probe) provider.Provider { return r.owners[p.Provider] }

// Macros are the macro variables the test programs may use.
var Macros = map[string]string{"1": "42", "2": "read", "target": "1234", "big": "0x100000000"}
