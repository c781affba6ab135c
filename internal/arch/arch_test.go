// Package arch holds the architecture of sonde as a test: which packages
// may depend on which, so that the one-way flow of docs/architecture.md
// (front end → plan → runtime → consume → format) cannot erode by an
// import added in passing.
package arch

import (
	"bufio"
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/sonde-trace/sonde/"

// rule forbids the packages whose import path starts with From (relative to
// the module) from depending, directly or not, on any of Not (module paths
// are relative; others, such as github.com/cilium/ebpf, absolute). Except
// lists packages of From the rule does not cover.
type rule struct {
	From   string
	Not    []string
	Except []string
	Why    string
	// Direct: the rule is on what From imports itself, not on all it
	// depends on.
	Direct bool
}

var rules = []rule{
	{From: "internal/d/", Not: []string{"github.com/cilium/ebpf", "internal/format", "internal/provider", "internal/runtime", "internal/consume", "net/http"},
		Except: []string{"internal/d/check/checktest"},
		Why:    "the front end is pure Go: no BPF, no kernel, no printer"},
	{From: "internal/probe", Not: []string{"github.com/cilium/ebpf", "internal/"},
		Why: "probe descriptions are data, a leaf"},
	{From: "internal/value", Not: []string{"github.com/cilium/ebpf", "internal/"},
		Why: "the value model is a leaf"},
	{From: "internal/format", Not: []string{"github.com/cilium/ebpf", "internal/runtime", "internal/consume", "internal/plan", "internal/provider", "internal/codegen"},
		Why: "the printers render values and never see BPF"},
	{From: "internal/codegen", Not: []string{"internal/runtime", "internal/consume", "internal/format", "github.com/cilium/ebpf/link", "net/http"},
		Why: "codegen makes a plan; it never loads, attaches or prints"},
	{From: "internal/plan", Not: []string{"internal/runtime", "internal/consume", "internal/format", "internal/codegen", "github.com/cilium/ebpf/link"},
		Why: "the plan is a deterministic description"},
	{From: "internal/provider", Not: []string{"internal/runtime", "internal/consume", "internal/format", "internal/codegen", "github.com/cilium/ebpf/link"},
		Why: "providers describe probes and emit prologues; the runtime attaches"},
	{From: "", Not: []string{"github.com/cilium/ebpf/link", "github.com/cilium/ebpf/rlimit"},
		Except: []string{"internal/runtime", "bench/floor", "bench/uprobe"}, Direct: true,
		Why: "only the runtime attaches programs to the kernel (the benchmark floors are hand-written on purpose)"},
	{From: "cmd/", Not: []string{"internal/runtime", "internal/consume", "internal/codegen", "internal/d/check", "github.com/cilium/ebpf"},
		Direct: true, Why: "the mains are flags and wiring: compiling and tracing go through internal/tracer"},
	{From: "internal/tracer", Not: []string{"internal/format", "net/http"}, Direct: true,
		Why: "the tracer hands values to a sink; it does not print"},
	{From: "internal/store", Not: []string{"internal/runtime", "internal/codegen", "internal/consume", "internal/d/", "github.com/cilium/ebpf"},
		Why: "the agent's store knows nothing of BPF"},
	{From: "cmd/sonde", Not: []string{"net", "github.com/prometheus/client_golang"}, Except: []string{"cmd/sonded"},
		Why: "tracing pays for no network code (net/http and client_golang cost sonde 4.0 MiB of peak RSS, package net 0.6 MiB, net/netip 0.3 MiB): " +
			"`sonde analytics` runs in sonded, --prometheus is internal/aggprom over package syscall"},
	{From: "internal/aggprom", Not: []string{"net", "github.com/prometheus/client_golang", "github.com/cilium/ebpf", "internal/tracer"},
		Why: "sonde's exporter is small on purpose: values in, text out, over package syscall"},
	{From: "internal/promexp", Not: []string{"internal/runtime", "internal/codegen", "internal/consume", "internal/tracer", "internal/agent", "github.com/cilium/ebpf"},
		Why: "the Prometheus exposition reads the agent's data model and a program's values, never BPF"},
	{From: "internal/api", Not: []string{"internal/runtime", "internal/codegen", "internal/consume", "github.com/cilium/ebpf"},
		Why: "the agent's API reads the store; the agent is the only bridge to the tracer"},
}

// deps lists every package of the module with its dependencies (all of
// them, or with direct those it imports itself).
func deps(t *testing.T, direct bool) map[string][]string {
	field := ".Deps"
	if direct {
		field = ".Imports"
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join `+field+` " "}}`, "../../...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && strings.HasPrefix(f[0], module) {
			m[strings.TrimPrefix(f[0], module)] = f[1:]
		}
	}
	if len(m) < 10 {
		t.Fatalf("go list found only %d packages", len(m))
	}
	return m
}

func resolve(p string) string {
	if strings.HasPrefix(p, "internal/") || strings.HasPrefix(p, "cmd/") {
		return module + p
	}
	return p
}

func covered(r rule, pkg string) bool {
	if !strings.HasPrefix(pkg, r.From) {
		return false
	}
	for _, e := range r.Except {
		if strings.HasPrefix(pkg, e) {
			return false
		}
	}
	return true
}

// forbidden returns the first of deps that rule r forbids pkg, or "".
func forbidden(r rule, pkg string, deps []string) string {
	for _, d := range deps {
		for _, not := range r.Not {
			n := resolve(not)
			if (d == n || strings.HasPrefix(d, strings.TrimSuffix(n, "/")+"/")) && d != module+pkg {
				return d
			}
		}
	}
	return ""
}

func TestImports(t *testing.T) {
	all, direct := deps(t, false), deps(t, true)
	for _, r := range rules {
		graph := all
		if r.Direct {
			graph = direct
		}
		for pkg, ds := range graph {
			if !covered(r, pkg) {
				continue
			}
			if d := forbidden(r, pkg, ds); d != "" {
				t.Errorf("%s depends on %s: %s", pkg, d, r.Why)
			}
		}
	}
}
