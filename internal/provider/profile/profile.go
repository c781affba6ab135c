// Package profile is the profile provider: profile-N fires on every CPU N
// times a second (or every N units: profile-10ms), tick-N on one CPU. Both
// are perf software CPU-clock events; arg0 is the kernel PC (0 in user
// mode), arg1 the user PC (0 in kernel mode).
package profile

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/sonde-trace/sonde/internal/provider"
)

// MaxProbes is the size of the provider's probe ID range: probes are
// numbered from 0 as they are created.
const MaxProbes = 1 << 20

// Provider is the profile provider.
type Provider struct {
	mu sync.Mutex
	provider.PerfProbes
}

// The probes listed before any is asked for, as DTrace lists them.
var standard = []string{
	"profile-97", "profile-199", "profile-499", "profile-997", "profile-1999",
	"profile-4001", "profile-4999", "tick-1", "tick-10", "tick-100", "tick-500",
	"tick-1000", "tick-5000", "tick-1sec", "tick-10sec",
}

// Name implements provider.Provider.
func (*Provider) Name() string { return "profile" }

// Period parses a profile or tick probe name into its period in ns.
func Period(name string) (period uint64, allCPU bool, err error) {
	var spec string
	switch {
	case strings.HasPrefix(name, "profile-"):
		spec, allCPU = name[len("profile-"):], true
	case strings.HasPrefix(name, "tick-"):
		spec = name[len("tick-"):]
	default:
		return 0, false, fmt.Errorf("not a profile probe")
	}
	i := 0
	for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false, fmt.Errorf("invalid rate in %q", name)
	}
	n, err := strconv.ParseUint(spec[:i], 10, 64)
	if err != nil || n == 0 {
		return 0, false, fmt.Errorf("invalid rate in %q", name)
	}
	unit := map[string]uint64{
		"": 0, "hz": 0, "ns": 1, "nsec": 1, "us": 1e3, "usec": 1e3, "ms": 1e6, "msec": 1e6,
		"s": 1e9, "sec": 1e9, "m": 60e9, "min": 60e9, "h": 3600e9, "hour": 3600e9, "d": 86400e9, "day": 86400e9,
	}
	mul, ok := unit[spec[i:]]
	if !ok {
		return 0, false, fmt.Errorf("invalid unit %q in %q", spec[i:], name)
	}
	if mul == 0 {
		if n > 1e9 {
			return 0, false, fmt.Errorf("rate too high in %q", name)
		}
		period = uint64(1e9) / n
	} else {
		period = n * mul
	}
	if period < 100000 {
		return 0, false, fmt.Errorf("%s: interval is below the minimum of 100us", name)
	}
	return period, allCPU, nil
}

func (p *Provider) probe(name string) (*provider.Probe, error) {
	return p.Named("profile", name, func() (provider.Hook, error) {
		period, all, err := Period(name)
		return provider.Hook{Kind: provider.HookPerf, Name: name, Period: period, AllCPU: all}, err
	})
}

// Probes implements provider.Provider. A name that is not a glob creates
// the probe it describes, as DTrace's profile provider does.
func (p *Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !provider.Glob(d.Provider, "profile") || (d.Module != "" && d.Module != "*") || (d.Function != "" && d.Function != "*") {
		return nil, nil
	}
	if !p.Made() {
		for _, n := range standard {
			if _, err := p.probe(n); err != nil {
				return nil, err
			}
		}
	}
	if d.Name != "" && !provider.IsGlob(d.Name) {
		if !strings.HasPrefix(d.Name, "profile-") && !strings.HasPrefix(d.Name, "tick-") {
			return nil, nil
		}
		q, err := p.probe(d.Name)
		if err != nil {
			return nil, err
		}
		return []*provider.Probe{q}, nil
	}
	return p.Matching(d), nil
}

// Attributes implements provider.Attributed: illumos's for profile.
func (*Provider) Attributes() provider.Pattr { return provider.ProfileAttr }
