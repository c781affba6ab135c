// Package agent is sonded's core: it runs datasets — statistics broken
// down and filtered, as the appliance's Analytics named them — every
// second, and answers what the HTTP API asks of it (analytics.Backend).
//
// A dynamic dataset is a D program that the statistics catalogue writes
// (a filter is a predicate, the breakdowns the aggregation's keys),
// compiled and started with package tracer, one session per dataset so
// that each has its own cost and can be suspended alone. Its aggregation
// is kept in generations: at every second's boundary an empty one is
// made current, and once the kernel says no program can still write to
// the one swapped out, that one is read whole — that second's events,
// summed over CPUs — and emptied for reuse. An event falls in exactly one
// second, and no key outlives the second it counted in. A static dataset is
// read from counters the kernel keeps. Each second's rows go to the store
// (archived datasets) or to a bounded ring in memory (open ones).
//
// The agent measures each dataset's BPF cost from the kernel's run-time
// statistics and suspends the dearest when all of them together exceed
// the budget. Datasets, their state, users' statistics, worksheets and
// events are kept in the store's meta documents and survive a restart.
package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/store"
	"github.com/sonde-trace/sonde/internal/tracer"
)

// Config configures an agent. Zero values take the defaults.
type Config struct {
	// Store keeps the data and the meta documents: a *store.DB.
	Store     Store
	Catalogue *stats.Catalogue
	// Budget is the share of one CPU that the BPF programs of all
	// datasets together may take (default 0.05): past it, the dearest
	// dataset is suspended and an "auto-suspended" event says so.
	// Negative: no budget.
	Budget float64
	// KeyLimit is the keys a dataset keeps per second (default 1000):
	// past it, the smallest keys of that second are summed into one
	// "other" row, and Dataset.Overflow counts the keys folded.
	KeyLimit int
	// AggEntries bounds the keys a dynamic dataset's aggregation holds in
	// one second, one generation (default 16384): events of new keys past
	// it in that second are not counted, and Dataset.Dropped says how many
	// entries could not be made.
	AggEntries int
	// Memory is how many seconds an open dataset keeps in memory
	// (default 600).
	Memory int
	// KeepOn are the datasets the budget never suspends (nil: the
	// defaults, stats.Defaults()).
	KeepOn []string
	// Now is the clock (tests inject one); nil is time.Now.
	Now func() time.Time
	// Logf logs what the agent does not report as an event; nil discards.
	Logf func(format string, args ...any)
}

// Observer is handed every dataset's second as it is kept (appended to
// the store or to an open dataset's memory), after the tick, in order,
// outside the agent's lock: the alert engine reads the same samples the
// store gets. It must not block.
type Observer interface {
	Observe(dataset string, s analytics.Second)
}

// Defaults.
const (
	DefaultBudget     = 0.05
	DefaultKeyLimit   = 1000
	DefaultAggEntries = 16384
	DefaultMemory     = 600
	// costWindow is how many seconds a dataset's cost is averaged over,
	// and costMin how many it needs before the budget judges it.
	costWindow = 5
	costMin    = 3
	maxEvents  = 1000
	// dropReport is how often, at most, a dataset's drops are reported as
	// an event.
	dropReport = time.Minute
)

// Agent runs datasets and serves analytics.Backend.
type Agent struct {
	cfg   Config
	st    Store
	cat   catalogue
	start starter
	// checkD checks a user statistic's D (compiles it).
	checkD func(src string) error
	costs  io.Closer

	createMu sync.Mutex // serialises Create and resumptions
	mu       sync.Mutex
	sets     map[string]*dataset
	// nextID numbers the next dataset created.
	nextID   int
	events   []analytics.Event
	eventSeq uint64
	sheets   map[string]analytics.Worksheet
	// done is the end of the last second sampled; ticked is closed when
	// the next one is.
	done    time.Time
	ticked  chan struct{}
	corrupt int
	closed  bool
	// batch are the seconds of a tick, appended to the store together.
	batch []store.Sample
	// keepOn are the datasets the budget never suspends.
	keepOn map[string]bool
	// observer sees each second kept; kept are the tick's seconds for it.
	observer Observer
	kept     []store.Sample
}

var _ analytics.Backend = (*Agent)(nil)

// New opens the agent on its store: it loads the users' statistics, the
// datasets (starting those not suspended), worksheets and events; on a
// store never initialised it creates the default datasets, archived. It
// holds the kernel's BPF run-time statistics on until Close.
func New(cfg Config) (*Agent, error) {
	if cfg.Store == nil || cfg.Catalogue == nil {
		return nil, errors.New("agent: a store and a catalogue are required")
	}
	costs, err := tracer.EnableStats()
	if err != nil {
		logf(cfg)("BPF costs will read zero: %v", err)
	}
	a, err := newAgent(cfg, cfg.Store, statsCatalogue{cfg.Catalogue}, start)
	if err != nil {
		if costs != nil {
			costs.Close()
		}
		return nil, err
	}
	a.costs = costs
	return a, nil
}

func logf(cfg Config) func(string, ...any) {
	if cfg.Logf != nil {
		return cfg.Logf
	}
	return func(string, ...any) {}
}

// newAgent is New with its dependencies given.
func newAgent(cfg Config, st Store, cat catalogue, start starter) (*Agent, error) {
	if cfg.Budget == 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.KeyLimit <= 0 {
		cfg.KeyLimit = DefaultKeyLimit
	}
	if cfg.AggEntries <= 0 {
		cfg.AggEntries = DefaultAggEntries
	}
	if cfg.Memory <= 0 {
		cfg.Memory = DefaultMemory
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Logf = logf(cfg)
	if cfg.KeepOn == nil {
		cfg.KeepOn = stats.Defaults()
	}
	keepOn := map[string]bool{}
	for _, n := range cfg.KeepOn {
		keepOn[n] = true
	}
	a := &Agent{cfg: cfg, st: st, cat: cat, start: start, sets: map[string]*dataset{}, keepOn: keepOn,
		sheets: map[string]analytics.Worksheet{}, ticked: make(chan struct{}),
		checkD: func(src string) error { _, err := compile(src, 0); return err }}
	if err := a.load(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *Agent) now() time.Time { return a.cfg.Now() }

// Run ticks every second until ctx is done.
func (a *Agent) Run(ctx context.Context) error {
	for {
		now := a.now()
		next := now.Truncate(time.Second).Add(time.Second)
		t := time.NewTimer(next.Sub(now))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		a.Tick(a.now())
	}
}

// Tick samples every running dataset for the second that ended at now
// (truncated to the second), appends it or keeps it in memory, measures
// costs against the budget, and wakes the readers waiting for it. Run
// calls it each second; a second already sampled is not sampled again.
func (a *Agent) Tick(now time.Time) {
	end := now.Truncate(time.Second)
	a.mu.Lock()
	if a.closed || !end.After(a.done) {
		a.mu.Unlock()
		return
	}
	sec := end.Add(-time.Second)
	var stop []collector
	a.swapAll()
	for _, ds := range a.sorted() {
		a.collect(ds, sec, now)
		a.measure(ds, now)
	}
	a.flush()
	if c := a.overBudget(); c != nil {
		stop = append(stop, c)
	}
	a.checkCorrupt(now)
	a.done = end
	close(a.ticked)
	a.ticked = make(chan struct{})
	obs, kept := a.observer, a.kept
	a.kept = nil
	a.mu.Unlock()
	for _, c := range stop {
		c.close()
	}
	if obs != nil {
		for _, k := range kept {
			obs.Observe(k.Dataset, k.Second)
		}
	}
}

// swapAll ends the second of every running dataset (a.mu held): first
// every swap, each a single store, so that the boundary is the same for
// all of them however many there are; then their settling at once (a
// dynamic dataset's waits for the BPF programs running in the kernel to
// finish, an RCU grace period of some tens of milliseconds, and the
// waits overlap).
func (a *Agent) swapAll() {
	var swapped []collector
	for _, ds := range a.sorted() {
		if ds.coll != nil && ds.coll.swap() == nil { // a failure is sample's to report
			swapped = append(swapped, ds.coll)
		}
	}
	var wg sync.WaitGroup
	for _, c := range swapped {
		wg.Add(1)
		go func(c collector) {
			defer wg.Done()
			_ = c.settle()
		}(c)
	}
	wg.Wait()
}

// SetObserver sets who sees each second kept (nil: nobody).
func (a *Agent) SetObserver(o Observer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.observer = o
}

// sorted lists the datasets by name.
func (a *Agent) sorted() []*dataset {
	out := make([]*dataset, 0, len(a.sets))
	for _, ds := range a.sets {
		out = append(out, ds)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].info.Name < out[j].info.Name })
	return out
}

// Close stops every dataset (their data stays), saves their state and
// releases the kernel's run-time statistics. The store is the caller's to
// close, after Close.
func (a *Agent) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	var stop []collector
	for _, ds := range a.sets {
		if ds.coll != nil {
			stop = append(stop, ds.coll)
			ds.coll = nil
		}
		a.saveDataset(ds)
	}
	close(a.ticked)
	a.mu.Unlock()
	for _, c := range stop {
		c.close()
	}
	if a.costs != nil {
		a.costs.Close()
	}
	return nil
}

// event records an event (a.mu held).
func (a *Agent) event(kind, dataset, format string, args ...any) {
	e := analytics.Event{Time: a.now().UTC(), Kind: kind, Dataset: dataset, Message: fmt.Sprintf(format, args...)}
	a.cfg.Logf("%s %s: %s", e.Kind, e.Dataset, e.Message)
	a.events = append(a.events, e)
	if len(a.events) > maxEvents {
		a.events = a.events[len(a.events)-maxEvents:]
	}
	a.eventSeq++
	a.putJSON(eventKey(a.eventSeq), e)
	if a.eventSeq > maxEvents {
		_ = a.st.DeleteMeta(eventKey(a.eventSeq - maxEvents))
	}
}

// checkCorrupt reports the chunks the store found corrupt since the last
// look.
func (a *Agent) checkCorrupt(time.Time) {
	c := a.st.Corrupt()
	for _, what := range c[min(a.corrupt, len(c)):] {
		a.event("corrupt-chunk", "", "skipped a corrupt chunk of the store: %s", what)
	}
	a.corrupt = len(c)
}

// userErr makes err the caller's (400) unless it already has a status.
func userErr(err error) error {
	var ae *analytics.Error
	if errors.As(err, &ae) {
		return ae
	}
	return &analytics.Error{Status: http.StatusBadRequest, Message: err.Error()}
}

func notFound(what, name string) error {
	return &analytics.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no %s %q", what, name)}
}
