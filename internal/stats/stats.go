// Package stats is sonded's statistics catalogue: the statistics a user
// can watch (syscall.ops, io.latency, cpu.utilization...), the syntax of a
// dataset's name ("io.ops[device=vda][op]"), and how each dataset is
// collected: as a D program compiled by the tracer (a filter becomes a
// predicate compiled into the kernel, breakdowns the aggregation's keys,
// distributions llquantize()), or, where the kernel already counts the
// same thing, by reading /proc and /sys each second at no per-event cost.
//
// (Contract for the implementation: the agent uses what is declared here.)
package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/value"
)

// Spec is a parsed dataset name, and how the dataset is planned.
type Spec struct {
	Statistic  string
	Filters    []analytics.Filter
	Breakdowns []string
	// Export: the dataset is exported as Prometheus metrics, and a
	// built-in distribution is quantized on ExportScale (exact native
	// histograms) rather than LatencyScale. Not part of the name.
	Export bool
}

// Catalogue is the set of statistics: the built-in ones and those users
// define. It is safe for concurrent use.
type Catalogue struct {
	mu       sync.RWMutex
	builtins map[string]*builtin
	users    map[string]*userStat
	// root is where /proc and /sys are read from ("/"; tests point it
	// at fixtures).
	root string
}

// New returns the built-in catalogue.
func New() *Catalogue {
	c := &Catalogue{builtins: map[string]*builtin{}, users: map[string]*userStat{}, root: "/"}
	for _, b := range builtins() {
		b.stat.Static = b.static != nil
		for _, d := range b.dims {
			b.stat.Breakdowns = append(b.stat.Breakdowns, analytics.Breakdown{Name: d.name, Description: d.desc})
		}
		c.builtins[b.stat.Name] = b
	}
	return c
}

// Statistics lists the catalogue, by name.
func (c *Catalogue) Statistics() []analytics.Statistic {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []analytics.Statistic
	for _, b := range c.builtins {
		out = append(out, b.stat)
	}
	for _, u := range c.users {
		out = append(out, u.stat)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Plan says how a dataset is collected: exactly one of Program and Static
// is set.
type Plan struct {
	Spec *Spec
	Stat analytics.Statistic
	// Program is the D program for a dynamic dataset: one aggregation,
	// @a, keyed by the breakdowns in order (none: no key), counting
	// (count()/sum()) or, for distributions, llquantize() with
	// Scale's parameters; filters are predicates.
	Program string
	// Static samples a static dataset: each call returns the rows of
	// the second since the last call (exact deltas of the kernel's
	// cumulative counters); the first call primes it and returns nil.
	Static func(now time.Time) ([]analytics.Row, error)
	// Scale maps an llquantize() bucket index to its [min, max) for
	// distributions.
	Scale func(index int) (min, max int64)
}

// Plan returns how to collect the dataset spec names. An unknown
// statistic, breakdown or filter is an *analytics.Error with Status 400.
func (c *Catalogue) Plan(spec *Spec) (*Plan, error) {
	c.mu.RLock()
	b, u := c.builtins[spec.Statistic], c.users[spec.Statistic]
	c.mu.RUnlock()
	switch {
	case b != nil:
		return c.planBuiltin(b, spec)
	case u != nil:
		return u.plan(spec)
	}
	return nil, badRequest("unknown statistic %q (the catalogue lists them)", spec.Statistic)
}

// planBuiltin checks spec against b and plans it: from the kernel's
// counters when they serve every filter and breakdown, else in D.
func (c *Catalogue) planBuiltin(b *builtin, spec *Spec) (*Plan, error) {
	if err := b.check(spec); err != nil {
		return nil, err
	}
	p := &Plan{Spec: spec, Stat: b.stat}
	switch {
	case b.static != nil && b.static.serves(spec):
		p.Static = b.static.sampler(c.root, spec)
	case b.d != nil:
		p.Stat.Static = false
		p.Program = b.program(spec)
	default:
		return nil, badRequest("%s is read from the kernel's counters, which break it down and filter it by %s only",
			spec.Statistic, strings.Join(b.static.dims, " and "))
	}
	if b.stat.Kind == analytics.Distribution {
		p.Scale, _ = scaleOf(value.Llquantize, LatencyScale) // a constant that is valid (tested)
		if spec.Export {
			p.Scale = shifted(ExportScale)
		}
	}
	return p, nil
}

// check checks that spec's breakdowns and filters are b's dimensions,
// and its filters' values.
func (b *builtin) check(spec *Spec) error {
	names := func() string {
		var n []string
		for _, d := range b.dims {
			n = append(n, d.name)
		}
		return strings.Join(n, ", ")
	}
	seen := map[string]bool{}
	for _, x := range spec.Breakdowns {
		if b.dim(x) == nil {
			return badRequest("%s has no breakdown %q (it has %s)", spec.Statistic, x, names())
		}
		if seen[x] {
			return badRequest("%s: breakdown %q given twice", spec.Statistic, x)
		}
		seen[x] = true
	}
	seen = map[string]bool{}
	for _, f := range spec.Filters {
		d := b.dim(f.Breakdown)
		if d == nil {
			return badRequest("%s has no breakdown %q to filter by (it has %s)", spec.Statistic, f.Breakdown, names())
		}
		if seen[f.Breakdown] {
			return badRequest("%s: filter on %q given twice", spec.Statistic, f.Breakdown)
		}
		seen[f.Breakdown] = true
		if err := checkFilter(spec.Statistic, d, f.Value); err != nil {
			return err
		}
	}
	return nil
}

// scaleOf is Plan.Scale for a distribution of function f with
// parameters p. llquantize(): bucket 0 is [0, factor^low) (llquantize is
// for magnitudes; values below, negative ones too, count there), then
// value.LlquantizeLayout's bounds. lquantize(): bucket 0 is [MinInt64,
// base), then steps. The last bucket is open: its max is
// analytics.Unbounded. An index out of range gives 0, 0.
func scaleOf(f value.AggFunc, p value.AggParams) (func(int) (int64, int64), error) {
	var bounds []int64
	low := int64(0)
	switch f {
	case value.Llquantize:
		q, err := value.LlquantizeOf(p)
		if err != nil {
			return nil, err
		}
		bounds = q.Bounds()
	case value.Lquantize:
		q, err := value.LquantizeOf(p)
		if err != nil {
			return nil, err
		}
		for i := 0; i <= int(q.Levels); i++ {
			bounds = append(bounds, int64(q.Base)+int64(i)*int64(q.Step))
		}
		low = math.MinInt64
	default:
		return nil, fmt.Errorf("%v is not a distribution", f)
	}
	return func(i int) (int64, int64) {
		switch {
		case i < 0 || i > len(bounds):
			return 0, 0
		case i == 0:
			return low, bounds[0]
		case i == len(bounds):
			return bounds[i-1], analytics.Unbounded
		}
		return bounds[i-1], bounds[i]
	}, nil
}

// shifted is the scale of a quantization of v-1 (ExportScale) in terms of
// v: bucket [lo, hi) of v-1 is [lo+1, hi+1) of v. The first bucket,
// everything below 1 for v-1, is [0, 2) (0 and 1: latencies are not
// negative); the last is open.
func shifted(p value.AggParams) func(int) (int64, int64) {
	base, _ := scaleOf(value.Llquantize, p) // a constant that is valid (tested)
	return func(i int) (int64, int64) {
		lo, hi := base(i)
		if lo == 0 && hi == 0 {
			return 0, 0
		}
		if i > 0 {
			lo++
		}
		if hi != analytics.Unbounded {
			hi++
		}
		return lo, hi
	}
}

// Defaults are the datasets archived from the first start, as the
// appliance did: cheap enough to leave on forever.
func Defaults() []string {
	return []string{"cpu.utilization", "cpu.utilization[mode]", "io.ops", "io.ops[op]", "io.bytes",
		"nic.kilobytes", "nic.kilobytes[direction]", "syscall.ops"}
}
