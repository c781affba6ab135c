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
	"errors"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// ErrNotImplemented is returned by this skeleton.
var ErrNotImplemented = errors.New("stats: not implemented yet")

// Spec is a parsed dataset name.
type Spec struct {
	Statistic  string
	Filters    []analytics.Filter
	Breakdowns []string
}

// Parse parses a dataset name: a statistic, then [breakdown=value]
// filters and [breakdown] breakdowns in any order ("syscall.ops[execname=
// postgres][name]"). Values may be quoted ("[execname=\"a b\"]"). Errors
// say what is wrong, at which byte.
func Parse(name string) (*Spec, error) { return nil, ErrNotImplemented }

// String is the canonical name: filters first, in the order given, then
// breakdowns ("syscall.ops[execname=dd][name]").
func (s *Spec) String() string { return "" }

// Catalogue is the set of statistics: the built-in ones and those users
// define.
type Catalogue struct{}

// New returns the built-in catalogue.
func New() *Catalogue { return &Catalogue{} }

// Statistics lists the catalogue, by name.
func (c *Catalogue) Statistics() []analytics.Statistic { return nil }

// Define adds a user statistic from D: one clause (or several) filling
// one aggregation, whose keys are its breakdowns (named by the
// aggregation's key expressions, or key0, key1...). The D is checked by the
// caller's compiler; Define checks its shape.
func (c *Catalogue) Define(name, description, source string) (analytics.Statistic, error) {
	return analytics.Statistic{}, ErrNotImplemented
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
func (c *Catalogue) Plan(spec *Spec) (*Plan, error) { return nil, ErrNotImplemented }

// Defaults are the datasets archived from the first start, as the
// appliance did: cheap enough to leave on forever.
func Defaults() []string {
	return []string{"cpu.utilization", "cpu.utilization[mode]", "io.ops", "io.ops[op]", "io.bytes",
		"nic.kilobytes", "nic.kilobytes[direction]", "syscall.ops"}
}
