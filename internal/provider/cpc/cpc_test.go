package cpc_test

import (
	"errors"
	"os"
	goruntime "runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/cpc"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name   string
		event  string
		typ    uint32
		config uint64
		mode   string
		count  uint64
	}{
		{"PAPI_tot_cyc-all-100000", "PAPI_tot_cyc", unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CPU_CYCLES, "all", 100000},
		{"PAPI_tot_ins-user-10000", "PAPI_tot_ins", unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS, "user", 10000},
		{"PAPI_l1_dcm-kernel-5000", "PAPI_l1_dcm", unix.PERF_TYPE_HW_CACHE, unix.PERF_COUNT_HW_CACHE_L1D | unix.PERF_COUNT_HW_CACHE_RESULT_MISS<<16, "kernel", 5000},
		{"page-faults-user-1", "page-faults", unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS, "user", 1},
		{"context-switches-all-10", "context-switches", unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CONTEXT_SWITCHES, "all", 10},
		{"cpu-clock-kernel-1000000", "cpu-clock", unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CPU_CLOCK, "kernel", 1000000},
		{"cs-all-0x10", "cs", unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CONTEXT_SWITCHES, "all", 16},
	} {
		s, err := cpc.Parse(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if s.Event.Name != c.event || s.Event.Type != c.typ || s.Event.Config != c.config || s.Mode != c.mode || s.Count != c.count {
			t.Errorf("%s: %+v", c.name, s)
		}
		h := s.Hook(c.name)
		e := h.Event
		if h.Kind != provider.HookPerf || !h.AllCPU || h.Period != c.count || !e.Set ||
			e.Type != c.typ || e.Config != c.config || e.ExcludeUser != (c.mode == "kernel") || e.ExcludeKernel != (c.mode == "user") {
			t.Errorf("%s: hook %+v", c.name, h)
		}
	}
}

func TestBadNames(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"PAPI_tot_cyc", "named event-mode-count"},
		{"PAPI_tot_cyc-100000", "named event-mode-count"},
		{"PAPI_tot_cyc-all-", "invalid count"},
		{"PAPI_tot_cyc-all-0", "invalid count"},
		{"PAPI_tot_cyc-all-x", "invalid count"},
		{"PAPI_tot_cyc-any-100000", `invalid mode "any"`},
		{"PAPI_tot_cyc-all-0x1-100000", `invalid mode "0x1"`},
		{"nosuch-all-100000", `unknown event "nosuch"`},
		{"-all-100000", `unknown event ""`},
		{"PAPI_tot_cyc-all-4999", "below the minimum of 5000 for a hardware counter"},
		{"cpu-clock-all-99999", "below the minimum of 100000 ns"},
		{"task-clock-user-10", "below the minimum of 100000 ns"},
	} {
		_, err := cpc.Parse(c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// No probe exists until one is named; naming it twice gives the same
// probe; globs list the probes created.
func TestProbes(t *testing.T) {
	p := &cpc.Provider{}
	if ps := providertest.Probes(t, p, provider.Desc{Provider: "cpc"}); len(ps) != 0 {
		t.Fatalf("cpc::: before any is named: %s", providertest.FullNames(ps))
	}
	a := providertest.One(t, p, "page-faults-user-100")
	b := providertest.One(t, p, "page-faults-user-100")
	c := providertest.One(t, p, "cs-all-1")
	if a != b || a == c || a.ID == c.ID {
		t.Errorf("page-faults twice: %p %p, cs %p (IDs %d %d)", a, b, c, a.ID, c.ID)
	}
	if got := providertest.FullNames(providertest.Probes(t, p, provider.Desc{Provider: "cpc", Name: "*-user-*"})); got != "cpc:::page-faults-user-100" {
		t.Errorf("cpc:::*-user-*: %s", got)
	}
	if got := providertest.FullNames(providertest.Probes(t, p, provider.Desc{Provider: "*"})); got != "cpc:::page-faults-user-100 cpc:::cs-all-1" {
		t.Errorf("*:::: %s", got)
	}
	for _, d := range []provider.Desc{
		{Provider: "cpc", Function: "main", Name: "cs-all-1"},
		{Provider: "cpc", Module: "vmlinux", Name: "cs-all-1"},
		{Provider: "*", Name: "cs-all-2"},
		{Provider: "syscall", Name: "cs-all-1"},
	} {
		if ps := providertest.Probes(t, p, d); len(ps) != 0 {
			t.Errorf("%s matched %s", d, providertest.FullNames(ps))
		}
	}
	var args []string
	for _, a := range a.Args {
		args = append(args, a.Type+" "+a.Name)
	}
	if strings.Join(args, ", ") != "uintptr_t pc, uintptr_t upc" {
		t.Errorf("args %q", args)
	}
}

// A hardware counter without a PMU is refused, saying so and naming the
// events that work; with one, the probe is created.
func TestHardware(t *testing.T) {
	_, err := (&cpc.Provider{}).Probes(provider.Desc{Provider: "cpc", Name: "PAPI_tot_cyc-all-100000"})
	if _, pmu := os.Stat("/sys/bus/event_source/devices/cpu"); pmu == nil {
		if err != nil {
			t.Fatalf("with a PMU: %v", err)
		}
		return
	}
	if !errors.Is(err, provider.ErrNotSupported) {
		t.Fatalf("without a PMU: %v, want provider.ErrNotSupported", err)
	}
	for _, want := range []string{"the hardware event PAPI_tot_cyc needs a CPU performance monitoring unit (PMU)", "cpc:::page-faults-user-1000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// touch writes one byte to each of the first pages pages of m.
//
//go:noinline
func touch(m []byte, pages, size int) {
	for i := 0; i < pages; i++ {
		m[i*size] = 1
	}
}

// page-faults-user-1 attached: every page this thread touches for the
// first time fires it once, with the user PC of the store in arg1 (in
// touch) and 0 in arg0.
func TestPageFaults(t *testing.T) {
	p := &cpc.Provider{}
	pr := providertest.One(t, p, "page-faults-user-1")
	l := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: pr.Hook, Probes: []*provider.Probe{pr},
		Needs: provider.Needs{Args: [10]bool{true, true, true}}, PID: os.Getpid()})
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	const pages = 1000
	size := os.Getpagesize()
	m, err := unix.Mmap(-1, 0, pages*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m, unix.MADV_NOHUGEPAGE); err != nil {
		t.Fatal(err)
	}
	tid := uint32(unix.Gettid())
	touch(m, pages, size)
	inTouch := 0
	for _, f := range l.Firings(t) {
		if f.ID != uint64(pr.ID) || f.Args[0] != 0 || f.Args[1] == 0 || f.Args[1] >= 1<<47 || f.Args[2] != 0 {
			t.Errorf("probe ID %d args %#x, want %d and a user PC alone", f.ID, f.Args[:3], pr.ID)
		}
		// the thread's other faults are the Go runtime's and the ring
		// buffer reader's
		if fn := goruntime.FuncForPC(uintptr(f.Args[1])); f.Tid == tid && fn != nil && strings.HasSuffix(fn.Name(), ".touch") {
			inTouch++
		}
	}
	if inTouch != pages {
		t.Errorf("%d page faults in touch, want %d", inTouch, pages)
	}
}
