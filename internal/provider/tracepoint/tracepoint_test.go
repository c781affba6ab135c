package tracepoint_test

import (
	"os"
	goruntime "runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/provider/tracepoint"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
	"github.com/sonde-trace/sonde/internal/tracefs"
)

// fs opens tracefs, failing with the reason when it cannot be read: the
// provider is tracefs.
func fs(t *testing.T) *tracefs.FS {
	t.Helper()
	f, err := tracefs.Open()
	if err != nil {
		t.Fatalf("tracefs is not readable (the tracepoint provider lists and types events from it; run as root with tracefs mounted): %v", err)
	}
	return f
}

func TestSchedSwitch(t *testing.T) {
	fs(t)
	p := &tracepoint.Provider{}
	ps := providertest.Probes(t, p, provider.Desc{Provider: "tracepoint", Module: "sched", Name: "sched_switch"})
	if len(ps) != 1 {
		t.Fatalf("tracepoint:sched::sched_switch: %d probes", len(ps))
	}
	sw := ps[0]
	if sw.FullName() != "tracepoint:sched::sched_switch" || sw.Hook != (provider.Hook{Kind: provider.HookTP, Group: "sched", Name: "sched_switch"}) {
		t.Errorf("%s: hook %s", sw.FullName(), sw.Hook)
	}
	if sw.Record == nil || sw.Record.Name != "struct sched_sched_switch" {
		t.Fatalf("sched_switch record %v", sw.Record)
	}
	var args []string
	for _, a := range sw.Args {
		args = append(args, a.Type+" "+a.Name)
	}
	if got := strings.Join(args, ", "); got != "pid_t prev_pid, int prev_prio, long prev_state, pid_t next_pid, int next_prio" {
		t.Errorf("sched_switch args: %s", got)
	}
	for _, c := range []struct {
		name string
		kind provider.MemberKind
		off  int
		size int
	}{
		{"common_pid", provider.MemberInt, 4, 4},
		{"prev_comm", provider.MemberString, 8, 16},
		{"prev_pid", provider.MemberInt, 24, 4},
		{"next_comm", provider.MemberString, 40, 16},
		{"next_prio", provider.MemberInt, 60, 4},
	} {
		m, ok := sw.Record.Member(c.name)
		if !ok || m.Kind != c.kind || m.Off != c.off || m.Size != c.size || !m.InHook {
			t.Errorf("args->%s: %+v, want kind %d offset %d size %d in the record", c.name, m, c.kind, c.off, c.size)
		}
	}
}

func TestMatch(t *testing.T) {
	f := fs(t)
	p := &tracepoint.Provider{}
	events, err := f.Events()
	if err != nil {
		t.Fatal(err)
	}
	all := providertest.Probes(t, p, provider.Desc{Provider: "tracepoint"})
	if len(all) != len(events) {
		t.Errorf("tracepoint::: %d probes, tracefs has %d events", len(all), len(events))
	}
	seen := map[uint32]bool{}
	for _, q := range all {
		if q.ID >= tracepoint.MaxProbes || seen[q.ID] {
			t.Errorf("%s: local ID %d repeated or outside [0, %d)", q.FullName(), q.ID, tracepoint.MaxProbes)
		}
		seen[q.ID] = true
		if q.Record != nil {
			t.Fatalf("tracepoint::: typed %s: reading every format file was meant to wait", q.FullName())
		}
	}
	for _, c := range []struct {
		d    provider.Desc
		want int
	}{
		{provider.Desc{Provider: "tracepoint", Module: "sched", Name: "sched_switch"}, 1},
		{provider.Desc{Provider: "tracepoint", Module: "sched*", Name: "sched_process_e*"}, 2}, // exec, exit
		{provider.Desc{Provider: "tracepoint", Module: "sched", Function: "f", Name: "sched_switch"}, 0},
		{provider.Desc{Provider: "tracepoint", Module: "nosuch"}, 0},
	} {
		if got := len(providertest.Probes(t, p, c.d)); got != c.want {
			t.Errorf("%s: %d probes, want %d", c.d, got, c.want)
		}
	}
	subs := strings.Join(p.Subsystems(), " ")
	for _, s := range []string{"sched", "syscalls", "raw_syscalls", "block"} {
		if !strings.Contains(" "+subs+" ", " "+s+" ") {
			t.Errorf("Subsystems lacks %s: %s", s, subs)
		}
	}
}

// Attached: arg0.. are the record's first integer fields, sign-extended
// as the format says.
func TestFire(t *testing.T) {
	fs(t)
	p := &tracepoint.Provider{}
	ps := providertest.Probes(t, p, provider.Desc{Provider: "tracepoint", Module: "syscalls", Name: "sys_exit_close"})
	if len(ps) != 1 {
		t.Fatalf("sys_exit_close: %d probes", len(ps))
	}
	pr := ps[0]
	if len(pr.Args) != 2 || pr.Args[0].Name != "__syscall_nr" || pr.Args[1].Name != "ret" {
		t.Fatalf("sys_exit_close args %+v", pr.Args)
	}
	l := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: pr.Hook, Probes: ps, PID: os.Getpid(),
		Needs: provider.Needs{Args: [10]bool{true, true, true}}})
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	tid := uint32(unix.Gettid())
	if err := unix.Close(12345); err != unix.EBADF {
		t.Fatalf("close(12345): %v", err)
	}
	n := 0
	for _, f := range l.Firings(t) {
		if f.Tid != tid {
			continue
		}
		n++
		if f.ID != uint64(pr.ID) || f.Args[0] != uint64(unix.SYS_CLOSE) || int64(f.Args[1]) != -int64(unix.EBADF) || f.Args[2] != 0 {
			t.Errorf("sys_exit_close: ID %d args %d %d %d, want %d, %d, -9, 0", f.ID, f.Args[0], int64(f.Args[1]), f.Args[2], pr.ID, unix.SYS_CLOSE)
		}
	}
	if n != 1 {
		t.Errorf("sys_exit_close fired %d times for one close", n)
	}
	if _, err := p.Prologue(pr.Hook, append(ps, ps...), provider.Needs{}, "exit"); err == nil {
		t.Error("a tracepoint prologue for two probes of one hook was accepted")
	}
}
