package sched_test

import (
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/provider/sched"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		d    provider.Desc
		want string
	}{
		{provider.Desc{Provider: "sched", Name: "on-cpu"}, "sched::sched_switch:on-cpu"},
		{provider.Desc{Name: "on-cpu"}, "sched::sched_switch:on-cpu"},
		{provider.Desc{Provider: "sched"}, "sched::sched_switch:on-cpu sched::sched_switch:off-cpu sched::sched_switch:sleep " +
			"sched::sched_switch:preempt sched::sched_wakeup:wakeup"},
		{provider.Desc{Provider: "sched", Function: "sched_wakeup"}, "sched::sched_wakeup:wakeup"},
		{provider.Desc{Provider: "sched", Name: "*-cpu"}, "sched::sched_switch:on-cpu sched::sched_switch:off-cpu"},
		{provider.Desc{Provider: "sched", Module: "vmlinux", Name: "on-cpu"}, ""},
		{provider.Desc{Provider: "proc", Name: "on-cpu"}, ""},
		// documented as having no stable tracepoint, so not published
		{provider.Desc{Provider: "sched", Name: "enqueue"}, ""},
		{provider.Desc{Provider: "sched", Name: "dequeue"}, ""},
		{provider.Desc{Provider: "sched", Name: "tick"}, ""},
		{provider.Desc{Provider: "sched", Name: "change-pri"}, ""},
		{provider.Desc{Provider: "sched", Name: "surrender"}, ""},
		{provider.Desc{Provider: "sched", Name: "remain-cpu"}, ""},
	} {
		if got := providertest.FullNames(providertest.Probes(t, sched.Provider{}, c.d)); got != c.want {
			t.Errorf("%s: %q, want %q", c.d, got, c.want)
		}
	}
}

func TestProbes(t *testing.T) {
	seen := map[uint32]bool{}
	for _, p := range providertest.Probes(t, sched.Provider{}, provider.Desc{}) {
		if p.ID >= sched.NumLocal() || seen[p.ID] {
			t.Errorf("%s: local ID %d repeated or outside [0, %d)", p.FullName(), p.ID, sched.NumLocal())
		}
		seen[p.ID] = true
		if p.Hook.Kind != provider.HookBTFTP || p.Hook.Name != p.Function || p.Hook.Group != p.Name {
			t.Errorf("%s: hook %+v, want its own tp_btf hook on %s", p.FullName(), p.Hook, p.Function)
		}
	}
	// on-cpu fires for the incoming thread, next, argument 3 of
	// sched_switch(preempt, prev, next, prev_state)
	if s := providertest.One(t, sched.Provider{}, "on-cpu").Subject; s != 3 {
		t.Errorf("on-cpu: subject %d, want 3 (next)", s)
	}
	for _, n := range []string{"off-cpu", "sleep", "preempt", "wakeup"} {
		if s := providertest.One(t, sched.Provider{}, n).Subject; s != 0 {
			t.Errorf("%s: subject %d, want the current thread", n, s)
		}
	}
}

func TestArgTypes(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"on-cpu", ""},
		{"sleep", ""},
		{"preempt", ""},
		{"off-cpu", "struct task_struct * lwpsinfo_t * lwpsinfo_t, struct task_struct * psinfo_t * psinfo_t"},
		{"wakeup", "struct task_struct * lwpsinfo_t * lwpsinfo_t, struct task_struct * psinfo_t * psinfo_t"},
	} {
		var got []string
		for _, a := range providertest.One(t, sched.Provider{}, c.name).Args {
			s := "<nil>"
			if a.Struct != nil {
				s = a.Struct.Name
			}
			got = append(got, a.Type+" "+a.XType+" "+s)
		}
		if strings.Join(got, ", ") != c.want {
			t.Errorf("sched:::%s args %q, want %q", c.name, got, c.want)
		}
	}
}

var allArgs = provider.Needs{Args: [10]bool{true, true}}

func load(t *testing.T, p *provider.Probe, pid int) *runtimetest.Loaded {
	t.Helper()
	return runtimetest.Load(t, runtimetest.Spec{Provider: sched.Provider{}, Hook: p.Hook,
		Probes: []*provider.Probe{p}, Needs: allArgs, PID: pid})
}

// Every probe's prologue loads, with and without its arguments.
func TestProloguesLoad(t *testing.T) {
	for _, p := range providertest.Probes(t, sched.Provider{}, provider.Desc{}) {
		for _, n := range []provider.Needs{{}, allArgs} {
			runtimetest.Load(t, runtimetest.Spec{Provider: sched.Provider{}, Hook: p.Hook, Probes: []*provider.Probe{p}, Needs: n})
		}
	}
}

// waitFor calls f until it reports true, failing t with what after a
// generous minute (the events awaited happen in microseconds).
func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// off-cpu and sleep fire in a thread that blocks; off-cpu's arguments
// describe the thread that runs next on that CPU (pr_onpro that CPU).
func TestOffCPU(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	var set unix.CPUSet
	cpu := goruntime.NumCPU() - 1 // not 0, where a zero would pass
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	tid := uint32(unix.Gettid())
	off := load(t, providertest.One(t, sched.Provider{}, "off-cpu"), os.Getpid())
	sleep := load(t, providertest.One(t, sched.Provider{}, "sleep"), os.Getpid())
	on := load(t, providertest.One(t, sched.Provider{}, "on-cpu"), 0)
	lwp, ps := provider.LwpsinfoT, provider.PsinfoT
	verified := 0
	waitFor(t, "off-cpu firing in a blocking thread naming a live thread to run next", func() bool {
		_ = unix.Nanosleep(&unix.Timespec{Nsec: 100000}, nil)
		for _, f := range off.Firings(t) {
			if f.Tid != tid {
				continue
			}
			if f.ID != uint64(providertest.One(t, sched.Provider{}, "off-cpu").ID) || f.CPU != uint32(cpu) {
				t.Fatalf("off-cpu: probe ID %d on CPU %d, want %d on %d", f.ID, f.CPU, providertest.One(t, sched.Provider{}, "off-cpu").ID, cpu)
			}
			if got := f.Int(providertest.Member(t, lwp, "pr_onpro")); got != int64(cpu) {
				t.Fatalf("off-cpu args[0]->pr_onpro %d, want %d (the next thread runs on the CPU switching)", got, cpu)
			}
			next, pid := f.Int(providertest.Member(t, lwp, "pr_lwpid")), f.Int(providertest.Member(t, ps, "pr_pid"))
			fname := f.String(providertest.Member(t, ps, "pr_fname"))
			if next == 0 {
				if !strings.HasPrefix(fname, "swapper/") || pid != 0 {
					t.Errorf("off-cpu: next thread 0 is %q of process %d, want the idle task", fname, pid)
				}
				continue
			}
			if next == int64(tid) {
				t.Fatalf("off-cpu: args[0] is the thread going off CPU (%d), not the next one", tid)
			}
			// (a thread may have exited, or exec'd and changed its name, since)
			comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", pid, next))
			if err == nil && strings.TrimSpace(string(comm)) == fname {
				verified++
			}
		}
		return verified > 0
	})
	if len(sleep.Firings(t)) == 0 {
		t.Error("sched:::sleep did not fire in a thread blocked in nanosleep")
	}
	if on.Hits(t)[uint64(providertest.One(t, sched.Provider{}, "on-cpu").ID)] == 0 {
		t.Error("sched:::on-cpu did not fire")
	}
}

// wakeup fires in the waker, its arguments the woken thread.
func TestWakeup(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	tid := uint32(unix.Gettid())
	cat := exec.Command("cat")
	w, err := cat.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		w.Close()
		_ = cat.Wait()
	}()
	wake := load(t, providertest.One(t, sched.Provider{}, "wakeup"), os.Getpid())
	lwp, ps := provider.LwpsinfoT, provider.PsinfoT
	waitFor(t, "wakeup of a cat blocked reading a pipe we write", func() bool {
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		for _, f := range wake.Firings(t) {
			if f.Tid != tid || f.Int(providertest.Member(t, ps, "pr_pid")) != int64(cat.Process.Pid) {
				continue
			}
			if f.Int(providertest.Member(t, lwp, "pr_lwpid")) != int64(cat.Process.Pid) || f.String(providertest.Member(t, ps, "pr_fname")) != "cat" ||
				f.Int(providertest.Member(t, ps, "pr_ppid")) != int64(os.Getpid()) || f.Int(providertest.Member(t, ps, "pr_uid")) != int64(os.Getuid()) {
				t.Errorf("wakeup of cat %d: lwpid %d fname %q ppid %d uid %d", cat.Process.Pid, f.Int(providertest.Member(t, lwp, "pr_lwpid")),
					f.String(providertest.Member(t, ps, "pr_fname")), f.Int(providertest.Member(t, ps, "pr_ppid")), f.Int(providertest.Member(t, ps, "pr_uid")))
			}
			return true
		}
		return false
	})
}
