// Package cpc is the CPU performance counter provider. A probe is named as
// DTrace names it, event-mode-count: cpc:::PAPI_tot_cyc-all-100000 fires
// on every CPU each time 100000 cycles have been counted there, in user
// and kernel mode (mode all), only in user mode (user) or only in kernel
// mode (kernel). arg0 is the kernel PC the counter overflowed at (0 in
// user mode), arg1 the user PC (0 in kernel mode).
//
// Events are PAPI's generic names (PAPI_tot_cyc, PAPI_tot_ins...) and
// Linux perf's (cycles, instructions, cpu-clock, page-faults,
// context-switches...); each is a perf event (perf_event_open(2)), counted
// on every CPU for every process. Software events count everywhere;
// hardware events need a CPU performance monitoring unit, and naming one
// where the kernel has none says so.
package cpc

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
)

// MaxProbes is the size of the provider's probe ID range: probes are
// numbered from 0 as they are created.
const MaxProbes = 1 << 16

// Minimum counts between firings. A hardware counter overflows in an
// interrupt: DTrace's cpc provider refuses fewer than 5000 events
// (dcpc-min-overflow). A clock counts nanoseconds: profile's floor of
// 100us. Other software events are kernel paths of their own (a page
// fault, a context switch), so that firing on each one costs no more than
// the event does.
const (
	MinHardware = 5000
	MinClock    = 100000
)

// Event is a counted event.
type Event struct {
	Name   string // as the probe names it
	Type   uint32 // perf_event_attr.type
	Config uint64 // perf_event_attr.config
}

// Hardware reports whether the event needs a PMU.
func (e Event) Hardware() bool {
	return e.Type == unix.PERF_TYPE_HARDWARE || e.Type == unix.PERF_TYPE_HW_CACHE
}

func (e Event) clock() bool {
	return e.Type == unix.PERF_TYPE_SOFTWARE &&
		(e.Config == unix.PERF_COUNT_SW_CPU_CLOCK || e.Config == unix.PERF_COUNT_SW_TASK_CLOCK)
}

// cache is a PERF_TYPE_HW_CACHE config: cache, operation and result.
func cache(id, op, result uint64) uint64 { return id | op<<8 | result<<16 }

const (
	hw = unix.PERF_TYPE_HARDWARE
	sw = unix.PERF_TYPE_SOFTWARE
	hc = unix.PERF_TYPE_HW_CACHE
)

// events are the names the provider knows: PAPI's generic events as
// DTrace's cpc provider offers them, then Linux perf's generic events (as
// perf list names them).
var events = map[string]Event{}

func init() {
	for _, e := range []Event{
		{"PAPI_tot_cyc", hw, unix.PERF_COUNT_HW_CPU_CYCLES},
		{"PAPI_tot_ins", hw, unix.PERF_COUNT_HW_INSTRUCTIONS},
		{"PAPI_br_ins", hw, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		{"PAPI_br_msp", hw, unix.PERF_COUNT_HW_BRANCH_MISSES},
		{"PAPI_ref_cyc", hw, unix.PERF_COUNT_HW_REF_CPU_CYCLES},
		{"PAPI_l3_tca", hw, unix.PERF_COUNT_HW_CACHE_REFERENCES},
		{"PAPI_l3_tcm", hw, unix.PERF_COUNT_HW_CACHE_MISSES},
		{"PAPI_l1_dca", hc, cache(unix.PERF_COUNT_HW_CACHE_L1D, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
		{"PAPI_l1_dcm", hc, cache(unix.PERF_COUNT_HW_CACHE_L1D, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},
		{"PAPI_l1_icm", hc, cache(unix.PERF_COUNT_HW_CACHE_L1I, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},
		{"PAPI_tlb_dm", hc, cache(unix.PERF_COUNT_HW_CACHE_DTLB, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},
		{"PAPI_tlb_im", hc, cache(unix.PERF_COUNT_HW_CACHE_ITLB, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},

		{"cpu-cycles", hw, unix.PERF_COUNT_HW_CPU_CYCLES},
		{"cycles", hw, unix.PERF_COUNT_HW_CPU_CYCLES},
		{"instructions", hw, unix.PERF_COUNT_HW_INSTRUCTIONS},
		{"cache-references", hw, unix.PERF_COUNT_HW_CACHE_REFERENCES},
		{"cache-misses", hw, unix.PERF_COUNT_HW_CACHE_MISSES},
		{"branch-instructions", hw, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		{"branches", hw, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		{"branch-misses", hw, unix.PERF_COUNT_HW_BRANCH_MISSES},
		{"bus-cycles", hw, unix.PERF_COUNT_HW_BUS_CYCLES},
		{"stalled-cycles-frontend", hw, unix.PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
		{"stalled-cycles-backend", hw, unix.PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
		{"ref-cycles", hw, unix.PERF_COUNT_HW_REF_CPU_CYCLES},
		{"L1-dcache-loads", hc, cache(unix.PERF_COUNT_HW_CACHE_L1D, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
		{"L1-dcache-load-misses", hc, cache(unix.PERF_COUNT_HW_CACHE_L1D, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},
		{"L1-icache-load-misses", hc, cache(unix.PERF_COUNT_HW_CACHE_L1I, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},
		{"LLC-loads", hc, cache(unix.PERF_COUNT_HW_CACHE_LL, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_ACCESS)},
		{"LLC-load-misses", hc, cache(unix.PERF_COUNT_HW_CACHE_LL, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},
		{"dTLB-load-misses", hc, cache(unix.PERF_COUNT_HW_CACHE_DTLB, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},
		{"iTLB-load-misses", hc, cache(unix.PERF_COUNT_HW_CACHE_ITLB, unix.PERF_COUNT_HW_CACHE_OP_READ, unix.PERF_COUNT_HW_CACHE_RESULT_MISS)},

		{"cpu-clock", sw, unix.PERF_COUNT_SW_CPU_CLOCK},
		{"task-clock", sw, unix.PERF_COUNT_SW_TASK_CLOCK},
		{"page-faults", sw, unix.PERF_COUNT_SW_PAGE_FAULTS},
		{"faults", sw, unix.PERF_COUNT_SW_PAGE_FAULTS},
		{"minor-faults", sw, unix.PERF_COUNT_SW_PAGE_FAULTS_MIN},
		{"major-faults", sw, unix.PERF_COUNT_SW_PAGE_FAULTS_MAJ},
		{"context-switches", sw, unix.PERF_COUNT_SW_CONTEXT_SWITCHES},
		{"cs", sw, unix.PERF_COUNT_SW_CONTEXT_SWITCHES},
		{"cpu-migrations", sw, unix.PERF_COUNT_SW_CPU_MIGRATIONS},
		{"migrations", sw, unix.PERF_COUNT_SW_CPU_MIGRATIONS},
		{"alignment-faults", sw, unix.PERF_COUNT_SW_ALIGNMENT_FAULTS},
		{"emulation-faults", sw, unix.PERF_COUNT_SW_EMULATION_FAULTS},
	} {
		events[e.Name] = e
	}
}

// Events returns the names of the events the provider knows, sorted.
func Events() []string {
	out := make([]string, 0, len(events))
	for n := range events {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Spec is a parsed probe name.
type Spec struct {
	Event Event
	Mode  string // all, user or kernel
	Count uint64 // events between firings (nanoseconds for a clock)
}

// Parse parses a probe name, event-mode-count. The event may itself
// contain dashes (page-faults-user-1000).
func Parse(name string) (Spec, error) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return Spec{}, errors.New("a cpc probe is named event-mode-count (PAPI_tot_cyc-all-100000)")
	}
	n, err := strconv.ParseUint(name[i+1:], 0, 64)
	if err != nil || n == 0 {
		return Spec{}, fmt.Errorf("invalid count %q: a cpc probe is named event-mode-count", name[i+1:])
	}
	rest := name[:i]
	j := strings.LastIndexByte(rest, '-')
	if j < 0 {
		return Spec{}, errors.New("a cpc probe is named event-mode-count (PAPI_tot_cyc-all-100000)")
	}
	mode := rest[j+1:]
	switch mode {
	case "all", "user", "kernel":
	default:
		return Spec{}, fmt.Errorf("invalid mode %q: all, user or kernel (a cpc probe is named event-mode-count; attribute masks are not supported)", mode)
	}
	ev, ok := events[rest[:j]]
	if !ok {
		return Spec{}, fmt.Errorf("unknown event %q; events: %s", rest[:j], strings.Join(Events(), " "))
	}
	s := Spec{Event: ev, Mode: mode, Count: n}
	switch {
	case ev.Hardware() && n < MinHardware:
		return Spec{}, fmt.Errorf("count %d is below the minimum of %d for a hardware counter", n, MinHardware)
	case ev.clock() && n < MinClock:
		return Spec{}, fmt.Errorf("count %d is below the minimum of %d ns for a clock", n, MinClock)
	}
	return s, nil
}

// Hook is the perf event hook of a parsed probe name.
func (s Spec) Hook(name string) provider.Hook {
	return provider.Hook{Kind: provider.HookPerf, Name: name, Period: s.Count, AllCPU: true,
		Event: provider.PerfEvent{Set: true, Type: s.Event.Type, Config: s.Event.Config,
			ExcludeUser: s.Mode == "kernel", ExcludeKernel: s.Mode == "user"}}
}

// Provider is the cpc provider.
type Provider struct {
	mu sync.Mutex
	provider.PerfProbes
	counts map[Event]error // whether the kernel counts an event: nil, it does
}

// Name implements provider.Provider.
func (*Provider) Name() string { return "cpc" }

// counted reports whether the kernel can count e, opening a counter for
// this process and closing it at once.
func (p *Provider) counted(e Event) error {
	if err, ok := p.counts[e]; ok {
		return err
	}
	attr := unix.PerfEventAttr{Type: e.Type, Config: e.Config, Size: unix.PERF_ATTR_SIZE_VER5,
		Bits: unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv}
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err == nil {
		unix.Close(fd)
	}
	switch {
	case err == nil, errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		// permission is the attaching's to report, as for profile
		err = nil
	case e.Hardware() && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENODEV)):
		err = &provider.NotSupportedError{
			What: "the hardware event " + e.Name, Need: "a CPU performance monitoring unit (PMU)",
			Why:  fmt.Sprintf("perf_event_open: %v; virtual machines often have none", err),
			Hint: "software events count everywhere: cpc:::cpu-clock-all-1000000, cpc:::page-faults-user-1000, cpc:::context-switches-all-1",
		}
	default:
		err = fmt.Errorf("this kernel does not count %s: perf_event_open: %w", e.Name, err)
	}
	if p.counts == nil {
		p.counts = map[Event]error{}
	}
	p.counts[e] = err
	return err
}

func (p *Provider) probe(name string) (*provider.Probe, error) {
	return p.Named("cpc", name, func() (provider.Hook, error) {
		s, err := Parse(name)
		if err != nil {
			return provider.Hook{}, err
		}
		if err := p.counted(s.Event); err != nil {
			return provider.Hook{}, err
		}
		return s.Hook(name), nil
	})
}

// Probes implements provider.Provider. As in DTrace, no cpc probe exists
// until a description names one: the name creates it.
func (p *Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !provider.Glob(d.Provider, "cpc") || (d.Module != "" && d.Module != "*") || (d.Function != "" && d.Function != "*") {
		return nil, nil
	}
	if d.Provider == "cpc" && d.Name != "" && !provider.IsGlob(d.Name) {
		q, err := p.probe(d.Name)
		if err != nil {
			return nil, err
		}
		return []*provider.Probe{q}, nil
	}
	return p.Matching(d), nil
}
