// Package analytics is the data model of sonded, the analytics agent, in
// the appliance's (Fishworks') terms: statistics, datasets, their
// per-second values, worksheets and the agent's events. It is pure data, a
// leaf that the agent, the store, the HTTP API and the CLI share; none of
// them needs another's internals to agree on these.
//
// A statistic is a named measure (syscall.ops, io.latency); a dataset is a
// statistic with filters and breakdowns, named as the appliance named them:
// "syscall.ops[execname=dd][name]" counts the system calls of processes
// named dd, broken down by system call name. Every second a dataset has a
// Second: its rows, one per key of its breakdowns (the empty key for the
// total of a dataset without breakdowns); a key that did not occur in that
// second is absent, not zero.
package analytics

import (
	"context"
	"time"
)

// DefaultPort is the TCP port sonded listens on by default, and that
// clients (sonde analytics) reach it at: on loopback, where no credentials
// are needed.
const DefaultPort = 7390

// DefaultAddr is sonded's default listening address, 127.0.0.1:7390.
const DefaultAddr = "127.0.0.1:7390"

// Kind says what a statistic's values are.
type Kind string

// Statistic kinds.
const (
	// Counter: events or amounts per second (ops, bytes), exact.
	Counter Kind = "counter"
	// Gauge: a level sampled each second (utilization, in Unit);
	// coarser tiers average it.
	Gauge Kind = "gauge"
	// Distribution: per second, how many events fell in each bucket of
	// a log-linear scale (latency, size): a heat map's column.
	Distribution Kind = "distribution"
)

// Statistic describes one statistic of the catalogue.
type Statistic struct {
	Name        string      `json:"name"`        // "syscall.ops"
	Description string      `json:"description"` // "system calls per second"
	Kind        Kind        `json:"kind"`
	Unit        string      `json:"unit"` // "ops per second", "nanoseconds", "percent"
	Breakdowns  []Breakdown `json:"breakdowns"`
	// Static: served from counters the kernel keeps (/proc/stat,
	// /proc/diskstats, /sys/class/net) at no per-event cost, where the
	// breakdowns asked for allow it.
	Static bool `json:"static,omitempty"`
	// User: defined by a user from D (its aggregation keys its
	// breakdowns); Source is that D.
	User   bool   `json:"user,omitempty"`
	Source string `json:"source,omitempty"`
}

// Breakdown is a dimension a statistic can be broken down or filtered by.
type Breakdown struct {
	Name        string `json:"name"` // "execname", "name", "device", "op"
	Description string `json:"description"`
}

// Filter is one [dimension=value] of a dataset's name: compiled into the
// kernel as a predicate.
type Filter struct {
	Breakdown string `json:"breakdown"`
	Value     string `json:"value"`
}

// State is a dataset's life cycle, as the appliance had it.
type State string

// Dataset states.
const (
	Open      State = "open"      // collected, kept in memory only
	Archived  State = "archived"  // collected, written to disk (24x7)
	Suspended State = "suspended" // not collected; data kept
)

// Dataset is what the agent says of one dataset.
type Dataset struct {
	// ID numbers the dataset for good (the appliance's dataset-NNN):
	// given when it is created, never reused.
	ID         int       `json:"id"`
	Name       string    `json:"name"` // "syscall.ops[execname=dd][name]"
	Statistic  string    `json:"statistic"`
	Filters    []Filter  `json:"filters,omitempty"`
	Breakdowns []string  `json:"breakdowns,omitempty"`
	State      State     `json:"state"`
	Created    time.Time `json:"created"`
	// Sizes in bytes: kept in memory, and on disk.
	InCore int64 `json:"incore"`
	OnDisk int64 `json:"ondisk"`
	// Cost, measured by the kernel's BPF run-time statistics over the
	// last seconds (0 for static datasets).
	EventsPerSecond float64 `json:"events_per_second"`
	NsPerEvent      float64 `json:"ns_per_event"`
	// Program is the D program that collects it ("" for static ones):
	// a filter shows in it as a predicate.
	Program string `json:"program,omitempty"`
	// Overflow counts keys folded into "other" past the dataset's limit.
	Overflow int64 `json:"overflow,omitempty"`
	// Dropped counts events not counted because the dataset's
	// aggregation map was full (its new keys found no room).
	Dropped int64 `json:"dropped,omitempty"`
	// Export: served as Prometheus metrics on /metrics (the default
	// datasets are).
	Export bool `json:"export,omitempty"`
}

// Bucket is one bucket of a distribution: [Min, Max) (Max Unbounded for
// the open last one, which JSON gives without "max") and how many events
// fell in it.
type Bucket struct {
	Index int32 `json:"-"` // the position in the statistic's scale
	Min   int64 `json:"min"`
	Max   Bound `json:"max,omitzero"`
	Count int64 `json:"count"`
}

// Row is one key's value in one second (or one coarser interval).
type Row struct {
	// Key holds the breakdowns' values in order ("dd", "write"); empty
	// for a dataset without breakdowns.
	Key []string `json:"key,omitempty"`
	// Value: the count or amount (counters), the level (gauges, in
	// the statistic's unit times Scale), or the number of events
	// (distributions).
	Value int64 `json:"value"`
	// Buckets: a distribution's nonzero buckets, by index.
	Buckets []Bucket `json:"buckets,omitempty"`
}

// Other is the key under which rows past a dataset's limit of keys are
// folded.
const Other = "other"

// Second is a dataset's value over one second, or over a minute or an
// hour in the coarser tiers.
type Second struct {
	// Time is the start of the interval.
	Time time.Time `json:"time"`
	// Samples is how many per-second samples the interval holds (1 for
	// a second; up to 60 for a minute): gauges are averaged by it.
	Samples int   `json:"samples"`
	Rows    []Row `json:"rows"`
}

// Granularity is a tier of the store.
type Granularity string

// The tiers.
const (
	PerSecond Granularity = "second"
	PerMinute Granularity = "minute"
	PerHour   Granularity = "hour"
)

// Width is the length of an interval of the tier: a second, a minute or
// an hour (a second for an unknown granularity).
func (g Granularity) Width() time.Duration {
	switch g {
	case PerMinute:
		return time.Minute
	case PerHour:
		return time.Hour
	}
	return time.Second
}

// Event is something the agent did or saw: a dataset created,
// suspended, auto-suspended for its cost, a corrupt chunk skipped...
type Event struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"` // "created", "suspended", "auto-suspended", "corrupt-chunk", ...
	Dataset string    `json:"dataset,omitempty"`
	Message string    `json:"message"`
}

// Worksheet is a named set of datasets with its time window and the
// drill-downs highlighted, saved by the agent for the UI.
type Worksheet struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Datasets []string  `json:"datasets"`
	Start    time.Time `json:"start,omitzero"`
	Seconds  int       `json:"seconds,omitempty"`
	Notes    string    `json:"notes,omitempty"`
	Updated  time.Time `json:"updated"`
}

// Backend is what the HTTP API and the CLI ask of the agent. Errors that
// are the caller's fault are *Error with a Status (400, 404, 409).
type Backend interface {
	Statistics() []Statistic
	Datasets() []Dataset
	Dataset(name string) (Dataset, error)
	// Create parses spec ("syscall.ops[execname=dd][name]"), compiles and
	// starts it (archived unless open is asked). A user-defined
	// statistic is created with DefineStatistic first.
	Create(spec string, state State) (Dataset, error)
	// DefineStatistic adds a user statistic: D with one aggregation.
	DefineStatistic(name, description, source string) (Statistic, error)
	SetState(name string, state State) (Dataset, error)
	// SetExport marks a dataset for export as Prometheus metrics, or
	// unmarks it.
	SetExport(name string, export bool) (Dataset, error)
	Destroy(name string) error
	// Data returns the dataset's values from start for n intervals of
	// granularity g; with start zero, the last n. With wait, a read
	// reaching the current second waits for it to complete.
	Data(ctx context.Context, name string, start time.Time, n int, g Granularity, wait bool) ([]Second, error)
	// Prune discards the tier's data older than before.
	Prune(g Granularity, before time.Time) error
	Events() []Event
	Worksheets() []Worksheet
	SaveWorksheet(w Worksheet) (Worksheet, error)
	DeleteWorksheet(id string) error
}

// Error is an error of the caller's: the HTTP status it deserves and a
// message (for bad D, the compiler's positioned text).
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string { return e.Message }
