package profile_test

import (
	"os"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/profile"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestPeriod(t *testing.T) {
	for _, c := range []struct {
		name   string
		period uint64
		all    bool
	}{
		{"profile-97", 1000000000 / 97, true},
		{"profile-997hz", 1000000000 / 997, true},
		{"profile-10ms", 10e6, true},
		{"tick-1s", 1e9, false},
		{"tick-1sec", 1e9, false},
		{"tick-10ms", 10e6, false},
		{"tick-10msec", 10e6, false},
		{"tick-100us", 100e3, false},
		{"tick-250usec", 250e3, false},
		{"tick-1000", 1e6, false},
		{"tick-2m", 120e9, false},
		{"tick-1min", 60e9, false},
		{"tick-1h", 3600e9, false},
		{"tick-1day", 86400e9, false},
		{"tick-100000000ns", 1e8, false},
	} {
		p, all, err := profile.Period(c.name)
		if err != nil || p != c.period || all != c.all {
			t.Errorf("%s: %d ns, every CPU %v, %v; want %d ns, %v", c.name, p, all, err, c.period, c.all)
		}
	}
}

func TestBadRates(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"tick-0", "invalid rate"},
		{"tick-", "invalid rate"},
		{"tick-s", "invalid rate"},
		{"profile-x", "invalid rate"},
		{"tick-1x", `invalid unit "x"`},
		{"tick-10fortnights", "invalid unit"},
		{"profile-2000000000", "rate too high"},
		{"tick-10us", "below the minimum of 100us"},
		{"profile-10001", "below the minimum"},
		{"tick-99999ns", "below the minimum"},
		{"tick-99999999999999999999", "invalid rate"},
		{"tock-1s", "not a profile probe"},
	} {
		_, _, err := profile.Period(c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

func match(t *testing.T, p *profile.Provider, d provider.Desc) []*provider.Probe {
	t.Helper()
	ps, err := p.Probes(d)
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	return ps
}

func names(ps []*provider.Probe) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return strings.Join(out, " ")
}

// The standard probes are listed as DTrace lists them; a name that is no
// glob creates its probe, once.
func TestProbes(t *testing.T) {
	p := &profile.Provider{}
	std := "profile-97 profile-199 profile-499 profile-997 profile-1999 profile-4001 profile-4999 " +
		"tick-1 tick-10 tick-100 tick-500 tick-1000 tick-5000 tick-1sec tick-10sec"
	if got := names(match(t, p, provider.Desc{Provider: "profile"})); got != std {
		t.Errorf("profile:::\n%s\nwant\n%s", got, std)
	}
	a := match(t, p, provider.Desc{Name: "tick-1s"})
	b := match(t, p, provider.Desc{Provider: "profile", Module: "*", Function: "*", Name: "tick-1s"})
	if len(a) != 1 || len(b) != 1 || a[0] != b[0] {
		t.Fatalf("tick-1s twice: %v, %v", a, b)
	}
	tick := a[0]
	if tick.Hook != (provider.Hook{Kind: provider.HookPerf, Name: "tick-1s", Period: 1e9}) {
		t.Errorf("tick-1s: hook %+v", tick.Hook)
	}
	if got := names(match(t, p, provider.Desc{Provider: "profile", Name: "tick-1*"})); got != "tick-1 tick-10 tick-100 tick-1000 tick-1sec tick-10sec tick-1s" {
		t.Errorf("profile:::tick-1*: %s", got)
	}
	for _, d := range []provider.Desc{
		{Provider: "profile", Function: "main", Name: "tick-1s"},
		{Provider: "profile", Module: "vmlinux", Name: "tick-1s"},
		{Provider: "syscall", Name: "tick-1s"},
		{Provider: "profile", Name: "BEGIN"},
	} {
		if ps := match(t, p, d); len(ps) != 0 {
			t.Errorf("%s matched %s", d, names(ps))
		}
	}
	if _, err := p.Probes(provider.Desc{Name: "tick-0"}); err == nil || !strings.Contains(err.Error(), "invalid rate") {
		t.Errorf("tick-0: %v", err)
	}
	seen := map[uint32]bool{}
	for _, q := range match(t, p, provider.Desc{Provider: "profile"}) {
		if q.ID >= profile.MaxProbes || seen[q.ID] {
			t.Errorf("%s: local ID %d repeated or outside [0, %d)", q.FullName(), q.ID, profile.MaxProbes)
		}
		seen[q.ID] = true
		var args []string
		for _, a := range q.Args {
			args = append(args, a.Type+" "+a.Name)
		}
		if strings.Join(args, ", ") != "uintptr_t pc, uintptr_t upc" {
			t.Errorf("%s: args %q", q.FullName(), args)
		}
		if q.Hook.AllCPU != strings.HasPrefix(q.Name, "profile-") {
			t.Errorf("%s: every CPU %v", q.FullName(), q.Hook.AllCPU)
		}
	}
	if len(seen) != 16 {
		t.Errorf("%d probes, want the 15 standard and tick-1s", len(seen))
	}
}

// profile-997 attached: a thread spinning in user mode is sampled with its
// user PC in arg1 and 0 in arg0; a kernel sample has the opposite.
func TestSample(t *testing.T) {
	p := &profile.Provider{}
	pr := match(t, p, provider.Desc{Name: "profile-997"})[0]
	tick := match(t, p, provider.Desc{Name: "tick-100ms"})[0]
	needs := provider.Needs{Args: [10]bool{true, true, true}}
	runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: tick.Hook, Probes: []*provider.Probe{tick}, Needs: needs})
	l := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: pr.Hook, Probes: []*provider.Probe{pr}, Needs: needs, PID: os.Getpid()})
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	tid := uint32(unix.Gettid())
	deadline := time.Now().Add(time.Minute)
	user := 0
	for user == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no profile-997 sample of a thread spinning in user mode")
		}
		x := 0
		for i := 0; i < 1e7; i++ {
			x += i
		}
		_ = x
		for _, f := range l.Firings(t) {
			if f.ID != uint64(pr.ID) || f.Args[2] != 0 {
				t.Errorf("probe ID %d arg2 %#x, want %d and 0", f.ID, f.Args[2], pr.ID)
			}
			pc, upc := f.Args[0], f.Args[1]
			switch {
			case pc == 0 && upc != 0 && upc < 1<<47:
				if f.Tid == tid {
					user++
				}
			case upc == 0 && pc >= 0xffff800000000000:
			default:
				t.Errorf("sample pc %#x upc %#x: want exactly one of a kernel and a user PC", pc, upc)
			}
		}
	}
}
