package agent

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// A collector collects one dataset: a tracer session whose aggregation
// is kept in per-second generations, or a static sampler of the kernel's
// counters.
type collector interface {
	// prime starts an interval: the next sample counts from now.
	prime(now time.Time) error
	// swap ends the current interval: what is counted from now on is the
	// next one's. It is quick: the agent swaps every dataset at the
	// second's boundary, then settles them.
	swap() error
	// settle waits until the interval ended by swap is complete (a
	// dynamic dataset's programs that were running have finished); the
	// agent settles every dataset at once, and their waits overlap.
	settle() error
	// sample returns the rows of the interval ended by the last swap (or
	// ends it now if it was not swapped): keys that counted nothing are
	// absent.
	sample(now time.Time) ([]analytics.Row, error)
	// cost is what the collector's BPF programs have cost so far (runs,
	// nanoseconds); zero for static collectors.
	cost() (runs, ns uint64)
	// lost is how many aggregation entries (and dynamic variables) could
	// not be stored so far: their events are not counted.
	lost() uint64
	close()
}

// starter starts a collector for a plan (the agent's is start; tests give
// fakes).
type starter func(pl *stats.Plan, aggEntries int) (collector, error)

// start starts the collector a plan asks for.
func start(pl *stats.Plan, aggEntries int) (collector, error) {
	if pl.Static != nil {
		return &static{f: pl.Static}, nil
	}
	return startDynamic(pl, aggEntries)
}

// static samples counters the kernel keeps (stats.Plan.Static).
type static struct {
	f func(now time.Time) ([]analytics.Row, error)
}

func (s *static) prime(now time.Time) error {
	_, err := s.f(now)
	return err
}

func (s *static) sample(now time.Time) ([]analytics.Row, error) {
	rows, err := s.f(now)
	sortRows(rows)
	return rows, err
}

func (s *static) swap() error             { return nil }
func (s *static) settle() error           { return nil }
func (s *static) cost() (runs, ns uint64) { return 0, 0 }
func (s *static) lost() uint64            { return 0 }
func (s *static) close()                  {}

// dynamic is a D program's session, compiled with its aggregation in
// generations (tracer.Config.AggGenerations): at each second's boundary
// an empty generation is made current, and the one swapped out — once
// the kernel guarantees no program still writes it — holds exactly that
// second's events, and is read whole. No key outlives the second it counted in,
// so the aggregation's entries bound the keys of one second, not of the
// dataset's life.
type dynamic struct {
	sess  *tracer.Session
	agg   int
	fn    value.AggFunc
	scale func(int) (int64, int64)
	sink  lossSink
	// swapped: the interval was ended by swap and is not read yet.
	swapped bool
}

// CompileConfig is how the agent compiles a dataset's D (src), its
// aggregation sized for aggEntries keys (0: the default): as sonde -n
// would, with the aggregation in generations and no destructive action.
func CompileConfig(src string, aggEntries int) *tracer.Config {
	cfg := &tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: src}}, Quiet: true, Prog: "sonded", NoDestructive: true,
		AggGenerations: true}
	if aggEntries > 0 {
		cfg.Options = []string{fmt.Sprintf("aggsize=%d", aggEntries*64)}
	}
	return cfg
}

// compile compiles a dataset's or a user statistic's D. Destructive
// actions are never allowed: the D comes from the API. Errors are the
// caller's (400), with the compiler's positioned message.
func compile(src string, aggEntries int) (*tracer.Program, error) {
	prog, err := tracer.Compile(CompileConfig(src, aggEntries))
	if err != nil {
		return nil, userError(prog, err)
	}
	if _, _, err := aggregation(prog); err != nil {
		return nil, err
	}
	return prog, nil
}

// userError is err as the API shows it: a D error with its position and
// caret, or the error's text.
func userError(prog *tracer.Program, err error) error {
	msg := ""
	if prog != nil {
		msg = prog.Render(err)
	}
	if msg == "" {
		msg = err.Error()
	}
	return &analytics.Error{Status: http.StatusBadRequest, Message: msg}
}

// aggregation finds the aggregation a dataset reads: @a, or the only one,
// and checks that its function can be read per second exactly.
func aggregation(prog *tracer.Program) (int, value.AggFunc, error) {
	aggs := prog.Plan.Aggs
	id := -1
	for i, a := range aggs {
		if a.Name == "a" {
			id = i
		}
	}
	if id < 0 && len(aggs) == 1 {
		id = 0
	}
	if id < 0 {
		return 0, 0, &analytics.Error{Status: http.StatusBadRequest,
			Message: fmt.Sprintf("a statistic's D fills one aggregation (or names its own @a); this one has %d", len(aggs))}
	}
	for _, r := range prog.Plan.Records {
		for _, act := range r.Actions {
			if (act.Kind == plan.ActClear || act.Kind == plan.ActTrunc) && len(act.Aggs) > 0 && act.Aggs[0] == id {
				return 0, 0, &analytics.Error{Status: http.StatusBadRequest,
					Message: fmt.Sprintf("%s: @%s is read whole each second and starts each second empty: clear() and trunc() have nothing to do", r.Pos, aggs[id].Name)}
			}
		}
	}
	switch fn := aggs[id].Func; fn {
	case value.Count, value.Sum, value.Quantize, value.Lquantize, value.Llquantize:
		return id, fn, nil
	default:
		return 0, 0, &analytics.Error{Status: http.StatusBadRequest,
			Message: fmt.Sprintf("@%s is a %s(): per-second values are read from count(), sum() or a quantization", aggs[id].Name, fn)}
	}
}

func startDynamic(pl *stats.Plan, aggEntries int) (collector, error) {
	prog, err := compile(pl.Program, aggEntries)
	if err != nil {
		return nil, err
	}
	return startCompiled(prog, pl, nil)
}

// startCompiled starts a dynamic collector of a compiled program; with a
// leader, one that counts in step with it (tracer.StartOptions.Follow):
// the leader's next swap ends its interval and starts the new collector's
// at the same instant (takeOver). The leader must not swap between the
// two (the agent's lock held throughout).
func startCompiled(prog *tracer.Program, pl *stats.Plan, leader *dynamic) (*dynamic, error) {
	id, fn, _ := aggregation(prog)
	c := &dynamic{agg: id, fn: fn, scale: pl.Scale}
	opts := &tracer.StartOptions{Sink: &c.sink}
	if leader != nil {
		opts.Follow = leader.sess
	}
	sess, err := prog.Start(opts)
	if err != nil {
		if msg := prog.Render(err); msg != "" {
			return nil, &analytics.Error{Status: http.StatusBadRequest, Message: msg}
		}
		return nil, fmt.Errorf("starting %s: %w", pl.Spec.Statistic, err)
	}
	if err := sess.Begin(); err != nil {
		sess.Close()
		return nil, fmt.Errorf("starting %s: %w", pl.Spec.Statistic, err)
	}
	c.sess = sess
	return c, nil
}

func (c *dynamic) swap() error {
	if c.swapped {
		return nil // the interval already ended: a second flip would bring back the one not yet read
	}
	if err := c.sess.Flip(); err != nil {
		return err
	}
	c.swapped = true
	return nil
}

func (c *dynamic) settle() error { return c.sess.Settle() }

// takeOver starts the interval of a collector started to follow the one
// it replaces, once that one has swapped (which flipped both): what it
// counted before is dropped, the leader's last interval having it.
func (c *dynamic) takeOver() error {
	c.swapped = false
	if err := c.sess.Followed(); err != nil {
		return err
	}
	return c.sess.Recycle()
}

// prime swaps, and empties what was counted before.
func (c *dynamic) prime(time.Time) error {
	c.swapped = false
	if err := c.sess.Rotate(); err != nil {
		return err
	}
	return c.sess.Recycle()
}

func (c *dynamic) sample(time.Time) ([]analytics.Row, error) {
	if !c.swapped {
		if err := c.swap(); err != nil {
			return nil, err
		}
	}
	if err := c.sess.Settle(); err != nil {
		return nil, err
	}
	c.swapped = false
	c.sess.Drain()
	c.sess.Status()
	a := c.sess.Snapshot(c.agg)
	if c.scale == nil {
		c.scale = scaleOf(a)
	}
	// Emptied now rather than at the next swap, which is then a single
	// store at the second's boundary; should this fail, the swap empties
	// it.
	_ = c.sess.Recycle()
	return rowsOf(a, c.fn, c.scale), nil
}

func (c *dynamic) cost() (runs, ns uint64) {
	runs, ns, err := c.sess.Cost()
	if err != nil {
		return 0, 0
	}
	return runs, ns
}

func (c *dynamic) lost() uint64 { return c.sink.drops }

func (c *dynamic) close() { c.sess.Close() }

// scaleOf is the range of each bucket of a quantization, for statistics
// whose plan gives no Scale (users' D): [min, max), max 0 for the last.
func scaleOf(a *value.Aggregation) func(int) (int64, int64) { return value.BucketRange(a) }

// lossSink takes a session's output: nothing is printed; losses are
// counted (aggregation entries and dynamic variables that did not fit).
type lossSink struct {
	drops  uint64
	faults uint64
}

func (s *lossSink) Firing(*value.Firing)       {}
func (s *lossSink) Fault(*value.Fault)         { s.faults++ }
func (s *lossSink) SetOption(string, string)   {}
func (s *lossSink) Final([]*value.Aggregation) {}
func (s *lossSink) Loss(l value.Loss) {
	if l.Kind == value.DropAggs || l.Kind == value.DropDynVars {
		s.drops += l.N
	}
}

var errClosed = errors.New("agent: closed")
