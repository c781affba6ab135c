package providers

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

// everything matches every description that lists probes without creating
// any: all of the registry's fixed providers, profile's standard probes,
// a process's pid probes and its USDT probes.
func everything(t *testing.T, r *Registry) []*provider.Probe {
	t.Helper()
	sleeper := strconv.Itoa(runtimetest.Spawn(t, "libc.so", "sleep", "1000"))
	python := strconv.Itoa(runtimetest.Spawn(t, "libc.so", "/usr/bin/python3", "-c", "import time; time.sleep(1000)"))
	var out []*provider.Probe
	for _, d := range []provider.Desc{
		{},
		{Name: "tick-1s"},
		{Provider: "profile", Name: "profile-1234"},
		{Provider: "pid" + sleeper, Module: "libc.so.6", Name: "entry"},
		{Provider: "pid" + sleeper, Function: "malloc"},
		{Provider: "pid" + python, Function: "PyObject_*", Name: "return"},
		{Provider: "python" + python},
		{Provider: "pyth*", Name: "gc-start"},
	} {
		ps, err := r.Match(d)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if len(ps) == 0 {
			t.Fatalf("%s matches nothing", d)
		}
		out = append(out, ps...)
	}
	return out
}

// entryOf returns the registry entry of the provider that published p.
func entryOf(t *testing.T, r *Registry, p *provider.Probe) entry {
	t.Helper()
	owner := r.Owner(p)
	if owner == nil {
		t.Fatalf("%s (ID %d): no owner", p.FullName(), p.ID)
	}
	for _, e := range r.entries {
		if e.p == owner {
			return e
		}
	}
	t.Fatalf("%s: owner %s is not in the registry", p.FullName(), owner.Name())
	return entry{}
}

// The ranges the registry gives its providers are disjoint and start at 1.
func TestRangesDisjoint(t *testing.T) {
	r := New()
	next := uint64(1)
	for _, e := range r.entries {
		if uint64(e.base) != next {
			t.Errorf("%s: range starts at %d, want %d (right after the previous one)", e.p.Name(), e.base, next)
		}
		next = uint64(e.base) + uint64(e.n)
	}
	if next > 1<<32 {
		t.Errorf("the ranges end at %d, past 32 bits", next)
	}
}

// Every probe's global ID lies in the range of the provider that owns it:
// its local ID is below the size of that range.
func TestIDsWithinTheirRange(t *testing.T) {
	r := New()
	for _, p := range everything(t, r) {
		e := entryOf(t, r, p)
		if p.ID < e.base || p.ID-e.base >= e.n {
			t.Errorf("%s: ID %d outside the range [%d, %d) of provider %s", p.FullName(), p.ID, e.base, e.base+e.n, e.p.Name())
		}
	}
}

// No two probes share an ID, Probe finds each by its ID, Owner names the
// provider that publishes it, and matching again gives the same probes.
func TestIDsUnique(t *testing.T) {
	r := New()
	ps := everything(t, r)
	byID := map[uint32]*provider.Probe{}
	for _, p := range ps {
		if q, ok := byID[p.ID]; ok && q != p {
			t.Errorf("%s and %s share ID %d", q.FullName(), p.FullName(), p.ID)
		}
		byID[p.ID] = p
		if r.Probe(p.ID) != p {
			t.Errorf("%s: Probe(%d) is another probe", p.FullName(), p.ID)
		}
		owner := r.Owner(p)
		if f, ok := owner.(provider.Family); ok {
			if !f.Serves(provider.Desc{Provider: p.Provider}) {
				t.Errorf("%s: owner %s does not serve provider %s", p.FullName(), owner.Name(), p.Provider)
			}
		} else if owner.Name() != p.Provider {
			t.Errorf("%s: owner is %s", p.FullName(), owner.Name())
		}
	}
	names := map[string]uint32{}
	for _, p := range ps {
		if id, ok := names[p.FullName()]; ok && id != p.ID {
			t.Errorf("%s has IDs %d and %d", p.FullName(), id, p.ID)
		}
		names[p.FullName()] = p.ID
	}
	again, err := r.Match(provider.Desc{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range again {
		if byID[p.ID] != p {
			t.Errorf("%s: matching again gave another probe", p.FullName())
		}
	}
}

// fake publishes probes with the local IDs it is given.
type fake struct {
	name string
	ids  []uint32
}

func (f fake) Name() string { return f.name }

func (f fake) Probes(d provider.Desc) ([]*provider.Probe, error) {
	var out []*provider.Probe
	for _, id := range f.ids {
		out = append(out, &provider.Probe{ID: id, Provider: f.name, Name: "p" + strconv.Itoa(int(id))})
	}
	return out, nil
}

func (fake) ProgramType(provider.Hook) ebpf.ProgramType { return ebpf.RawTracepoint }

func (fake) Prologue(provider.Hook, []*provider.Probe, provider.Needs, string) (asm.Instructions, error) {
	return nil, nil
}

func (fake) Guard(provider.Hook, []*provider.Probe, []*provider.Probe, string) asm.Instructions {
	return nil
}

// A provider whose local ID reaches the size of its range would take the
// next provider's first ID: the registry refuses it with an error.
func TestLocalIDOutsideRange(t *testing.T) {
	r := empty()
	r.add(fake{"a", []uint32{0, 2}}, 2)
	r.add(fake{"b", []uint32{0}}, 1)
	ps, err := r.Match(provider.Desc{})
	if err == nil {
		var names []string
		for _, p := range ps {
			names = append(names, p.FullName()+"="+strconv.Itoa(int(p.ID)))
		}
		t.Fatalf("local ID 2 of a range of 2 accepted: %v", names)
	}
	if !strings.Contains(err.Error(), "a:::p2") {
		t.Errorf("error %q does not name the probe", err)
	}
	r = empty()
	r.add(fake{"a", []uint32{0, 1}}, 2)
	r.add(fake{"b", []uint32{0}}, 1)
	ps, err = r.Match(provider.Desc{})
	if err != nil || len(ps) != 3 || ps[0].ID != 1 || ps[1].ID != 2 || ps[2].ID != 3 {
		t.Errorf("IDs within range: %v, %v", ps, err)
	}
}

// BEGIN, END and ERROR are 1, 2 and 3, as the package promises (and as
// dtrace -l lists them).
func TestDtraceIDs(t *testing.T) {
	r := New()
	for i, name := range []string{"BEGIN", "END", "ERROR"} {
		ps, err := r.Match(provider.Desc{Name: name})
		if err != nil || len(ps) != 1 {
			t.Fatalf(":::%s: %v, %v", name, ps, err)
		}
		if ps[0].ID != uint32(i+1) || ps[0].Provider != "dtrace" {
			t.Errorf(":::%s: %s ID %d, want dtrace ID %d", name, ps[0].FullName(), ps[0].ID, i+1)
		}
	}
}

// Descriptions as the checker passes them, through the registry.
func TestMatch(t *testing.T) {
	r := New()
	for _, c := range []struct {
		d    provider.Desc
		want []string // full names, in ID order
	}{
		{provider.Desc{Name: "BEGIN"}, []string{"dtrace:::BEGIN"}},
		{provider.Desc{Provider: "sched", Name: "on-cpu"}, []string{"sched::sched_switch:on-cpu"}},
		{provider.Desc{Name: "tick-10ms"}, []string{"profile:::tick-10ms"}},
		{provider.Desc{Provider: "proc", Name: "exec-success"}, []string{"proc::sched_process_exec:exec-success"}},
		{provider.Desc{Provider: "io", Name: "start"}, []string{"io::block_rq_issue:start"}},
		{provider.Desc{Provider: "io"}, []string{"io::block_rq_issue:start", "io::block_rq_complete:done"}},
		{provider.Desc{Provider: "tracepoint", Module: "sched", Name: "sched_switch"}, []string{"tracepoint:sched::sched_switch"}},
		{provider.Desc{Provider: "syscall", Function: "getppid"}, []string{"syscall::getppid:entry", "syscall::getppid:return"}},
		{provider.Desc{Provider: "nosuch"}, nil},
		{provider.Desc{Provider: "pid"}, nil},
	} {
		ps, err := r.Match(c.d)
		if err != nil {
			t.Errorf("%s: %v", c.d, err)
			continue
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.FullName())
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: %q, want %q", c.d, got, c.want)
		}
	}
}

// Errors of providers reach the caller.
func TestMatchErrors(t *testing.T) {
	r := New()
	for _, c := range []struct {
		d    provider.Desc
		want string
	}{
		{provider.Desc{Provider: "fbt"}, "kprobes"},
		{provider.Desc{Name: "tick-0"}, "invalid rate"},
		{provider.Desc{Provider: "pid999999999", Name: "entry"}, "pid provider"},
		{provider.Desc{Provider: "python999999999"}, "no such process"},
	} {
		_, err := r.Match(c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.d, err, c.want)
		}
	}
}

// TypeArgs types what Match left untyped: syscall arguments of wide
// descriptions, tracepoint records.
func TestTypeArgs(t *testing.T) {
	r := New()
	ps, err := r.Match(provider.Desc{Provider: "syscall", Name: "entry"})
	if err != nil {
		t.Fatal(err)
	}
	var read *provider.Probe
	for _, p := range ps {
		if p.Function == "read" {
			read = p
		}
	}
	if read == nil || read.Args != nil {
		t.Fatalf("syscall:::entry: read %v", read)
	}
	r.TypeArgs([]*provider.Probe{read})
	if len(read.Args) != 3 || read.Args[2].Type != "size_t" {
		t.Errorf("read:entry typed %v", read.Args)
	}
	tps, err := r.Match(provider.Desc{Provider: "tracepoint"})
	if err != nil {
		t.Fatalf("tracepoint::: (tracefs is needed): %v", err)
	}
	var sw *provider.Probe
	for _, p := range tps {
		if p.Module == "sched" && p.Name == "sched_switch" {
			sw = p
		}
	}
	if sw == nil || sw.Record != nil {
		t.Fatalf("tracepoint:::: sched_switch %v", sw)
	}
	r.TypeArgs([]*provider.Probe{sw})
	if sw.Record == nil {
		t.Fatal("TypeArgs left tracepoint:sched::sched_switch without its record")
	}
	if _, ok := sw.Record.Member("prev_comm"); !ok {
		t.Errorf("sched_switch record has no prev_comm: %v", sw.Record.Members)
	}
}
