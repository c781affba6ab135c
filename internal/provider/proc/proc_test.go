package proc_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/proc"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		d    provider.Desc
		want string
	}{
		{provider.Desc{Provider: "proc", Name: "exec-success"}, "proc::sched_process_exec:exec-success"},
		// a tracepoint's probes in the order they fire (the package
		// comment): lwp-exit then exit, lwp-create then create, start
		// then lwp-start
		{provider.Desc{Provider: "proc"}, "proc::sched_process_exec:exec-success proc::sched_process_exit:lwp-exit " +
			"proc::sched_process_exit:exit proc::sched_process_fork:lwp-create proc::sched_process_fork:create " +
			"proc::signal_generate:signal-send proc::signal_deliver:signal-handle " +
			"proc::sched_process_fork:start proc::sched_process_fork:lwp-start " +
			"proc::sys_enter:exec proc::sys_exit:exec-failure proc::sys_exit:signal-clear proc::signal_generate:signal-discard"},
		{provider.Desc{Provider: "proc", Name: "signal-*"}, "proc::signal_generate:signal-send proc::signal_deliver:signal-handle proc::sys_exit:signal-clear proc::signal_generate:signal-discard"},
		{provider.Desc{Provider: "proc", Function: "sched_process_exit"}, "proc::sched_process_exit:lwp-exit proc::sched_process_exit:exit"},
		{provider.Desc{Provider: "proc", Name: "exec"}, "proc::sys_enter:exec"},
		{provider.Desc{Provider: "proc", Name: "exec-failure"}, "proc::sys_exit:exec-failure"},
		{provider.Desc{Provider: "proc", Name: "start"}, "proc::sched_process_fork:start"},
		{provider.Desc{Provider: "proc", Name: "lwp-start"}, "proc::sched_process_fork:lwp-start"},
		{provider.Desc{Provider: "proc", Name: "signal-clear"}, "proc::sys_exit:signal-clear"},
		{provider.Desc{Provider: "sched", Name: "exit"}, ""},
	} {
		var got []string
		for _, p := range providertest.Probes(t, proc.Provider{}, c.d) {
			got = append(got, p.FullName())
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.d, got, c.want)
		}
	}
	seen := map[uint32]bool{}
	for _, p := range providertest.Probes(t, proc.Provider{}, provider.Desc{}) {
		if p.ID >= proc.NumLocal() || seen[p.ID] {
			t.Errorf("%s: local ID %d repeated or outside [0, %d)", p.FullName(), p.ID, proc.NumLocal())
		}
		seen[p.ID] = true
		subject := 0
		if strings.HasSuffix(p.Name, "start") {
			subject = 2 // the new process or thread: sched_process_fork's child
		}
		if p.Hook != (provider.Hook{Kind: provider.HookBTFTP, Name: p.Function, Group: p.Name}) || p.Subject != subject {
			t.Errorf("%s: hook %+v subject %d", p.FullName(), p.Hook, p.Subject)
		}
	}
}

func TestArgTypes(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"exec-success", ""},
		{"exit", "int"},
		{"lwp-exit", ""},
		{"create", "psinfo_t *"},
		{"lwp-create", "lwpsinfo_t *, psinfo_t *"},
		{"signal-send", "lwpsinfo_t *, psinfo_t *, int"},
		{"signal-handle", "int, siginfo_t *, void (*)(void)"},
		{"signal-discard", "lwpsinfo_t *, psinfo_t *, int"},
	} {
		var got []string
		for _, a := range providertest.One(t, proc.Provider{}, c.name).Args {
			ty := a.Type
			if a.XType != "" {
				ty = a.XType
				if a.Type != "struct task_struct *" || a.Struct == nil || a.Struct.Name+" *" != a.XType {
					t.Errorf("proc:::%s: %s translated from %s with %v", c.name, a.XType, a.Type, a.Struct)
				}
			}
			got = append(got, ty)
		}
		if strings.Join(got, ", ") != c.want {
			t.Errorf("proc:::%s args %q, want %q", c.name, got, c.want)
		}
	}
}

var needs = provider.Needs{Args: [10]bool{true, true, true}}

func TestProloguesLoad(t *testing.T) {
	for _, p := range providertest.Probes(t, proc.Provider{}, provider.Desc{}) {
		for _, n := range []provider.Needs{{}, needs} {
			runtimetest.Load(t, runtimetest.Spec{Provider: proc.Provider{}, Hook: p.Hook, Probes: []*provider.Probe{p}, Needs: n})
		}
	}
	// exit and lwp-exit as kernels before 6.16 have them, without
	// group_dead (this kernel's verifier refuses to let a program read
	// an argument a tracepoint does not have, not the other way)
	proc.SetGroupDeadArg(t, false)
	for _, name := range []string{"exit", "lwp-exit"} {
		p := providertest.One(t, proc.Provider{}, name)
		runtimetest.Load(t, runtimetest.Spec{Provider: proc.Provider{}, Hook: p.Hook, Probes: []*provider.Probe{p}, Needs: needs})
	}
}

// The script makes a thread, takes a signal it handles, sends itself one
// it ignores and exits with 3.
const script = `
import os, signal, threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
signal.signal(signal.SIGUSR1, lambda *a: None)
os.kill(os.getpid(), signal.SIGUSR1)
signal.signal(signal.SIGUSR2, signal.SIG_IGN)
os.kill(os.getpid(), signal.SIGUSR2)
os._exit(3)
`

// Every probe fires for processes we run, with the arguments the
// provider documents.
func TestFire(t *testing.T) {
	ls := map[string]*runtimetest.Loaded{}
	for _, p := range providertest.Probes(t, proc.Provider{}, provider.Desc{}) {
		ls[p.Name] = runtimetest.Load(t, runtimetest.Spec{Provider: proc.Provider{}, Hook: p.Hook, Probes: []*provider.Probe{p}, Needs: needs})
	}
	py := exec.Command("/usr/bin/python3", "-c", script)
	if err := py.Run(); err == nil || py.ProcessState.ExitCode() != 3 {
		t.Fatalf("python3: %v", err)
	}
	killed := exec.Command("sleep", "1000")
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	if err := killed.Process.Signal(unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	me, pyPid, kPid := uint32(os.Getpid()), uint32(py.Process.Pid), uint32(killed.Process.Pid)
	lwp, ps := provider.LwpsinfoT, provider.PsinfoT
	m := func(s *provider.Struct, name string) *provider.Member {
		x, ok := s.Member(name)
		if !ok {
			t.Fatalf("%s has no %s", s.Name, name)
		}
		return x
	}
	got := map[string][]runtimetest.Firing{}
	for name, l := range ls {
		got[name] = l.Firings(t)
	}
	fired := func(name string, pid uint32, want int, ok func(f runtimetest.Firing) bool) {
		t.Helper()
		n := 0
		for _, f := range got[name] {
			if f.ID != uint64(providertest.One(t, proc.Provider{}, name).ID) {
				t.Errorf("proc:::%s: probe ID %d", name, f.ID)
			}
			if f.Pid == pid && ok(f) {
				n++
			}
		}
		if n != want {
			t.Errorf("proc:::%s: %d firings in process %d as expected, want %d", name, n, pid, want)
		}
	}
	fired("exec-success", pyPid, 1, func(runtimetest.Firing) bool { return true })
	fired("create", me, 1, func(f runtimetest.Firing) bool {
		return f.Int(m(ps, "pr_pid")) == int64(pyPid) && f.Int(m(ps, "pr_ppid")) == int64(me)
	})
	// python3's two threads: its first, made by the test (lwp-create
	// for a new process's thread), and the one it makes
	fired("lwp-create", me, 1, func(f runtimetest.Firing) bool {
		return f.Int(m(ps, "pr_pid")) == int64(pyPid) && f.Int(m(lwp, "pr_lwpid")) == int64(pyPid) && f.Int(m(ps, "pr_ppid")) == int64(me)
	})
	fired("lwp-create", pyPid, 1, func(f runtimetest.Firing) bool {
		return f.Int(m(ps, "pr_pid")) == int64(pyPid) && f.Int(m(lwp, "pr_lwpid")) != int64(pyPid) && f.Int(m(lwp, "pr_lwpid")) > 0
	})
	// both threads fire lwp-exit, the last one exit too
	fired("lwp-exit", pyPid, 2, func(runtimetest.Firing) bool { return true })
	fired("exit", pyPid, 1, func(f runtimetest.Firing) bool { return f.Args[0] == 1 }) // CLD_EXITED
	fired("lwp-exit", kPid, 1, func(runtimetest.Firing) bool { return true })
	fired("exit", kPid, 1, func(f runtimetest.Firing) bool { return f.Args[0] == 2 }) // CLD_KILLED
	var usr1, kill int
	for _, f := range got["signal-send"] {
		if f.Pid == pyPid && f.Args[2] == uint64(unix.SIGUSR2) {
			t.Errorf("signal-send fired for SIGUSR2, which python3 ignores")
		}
		if f.Pid == pyPid && f.Args[2] == uint64(unix.SIGUSR1) && f.Int(m(ps, "pr_pid")) == int64(pyPid) && f.String(m(ps, "pr_fname")) == "python3" {
			usr1++
		}
		if f.Pid == me && f.Args[2] == uint64(unix.SIGKILL) && f.Int(m(ps, "pr_pid")) == int64(kPid) && f.Int(m(lwp, "pr_lwpid")) == int64(kPid) {
			kill++
		}
	}
	if usr1 != 1 || kill != 1 {
		t.Errorf("signal-send: SIGUSR1 to itself %d times, SIGKILL to sleep %d times; want once each", usr1, kill)
	}
	fired("signal-discard", pyPid, 1, func(f runtimetest.Firing) bool {
		return f.Args[2] == uint64(unix.SIGUSR2) && f.Int(m(ps, "pr_pid")) == int64(pyPid) && f.Int(m(lwp, "pr_lwpid")) == int64(pyPid)
	})
	handled := 0
	for _, f := range got["signal-handle"] {
		if f.Pid != pyPid {
			continue
		}
		switch {
		case f.Args[0] == uint64(unix.SIGUSR1):
			handled++
			if f.Args[1] != 0 || f.Args[2] == 0 || f.Args[2] == 1 {
				t.Errorf("signal-handle of SIGUSR1: args %#x, want SIGUSR1, 0 and a handler's address", f.Args[:3])
			}
		default:
			// not SIGKILL either, where os._exit kills a thread still
			// finishing after join: no signal was sent
			t.Errorf("signal-handle in python3 %d/%d: args %#x", f.Pid, f.Tid, f.Args[:3])
		}
	}
	if handled != 1 {
		t.Errorf("signal-handle fired %d times in python3, want once", handled)
	}
}
