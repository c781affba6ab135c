package agent

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/value"
)

// fakeCat is a catalogue of statistics named fake.*: "fake.ops[k]",
// "fake.lat" (a distribution); "bad.*" fail to plan.
type fakeCat struct {
	mu   sync.Mutex
	user map[string]string
}

func (c *fakeCat) Parse(name string) (*stats.Spec, string, error) {
	stat, rest, _ := strings.Cut(name, "[")
	if !strings.Contains(stat, ".") {
		return nil, "", &analytics.Error{Status: 400, Message: "no statistic " + stat}
	}
	s := &stats.Spec{Statistic: stat}
	if rest != "" {
		for _, p := range strings.Split(strings.TrimSuffix(rest, "]"), "][") {
			if b, v, ok := strings.Cut(p, "="); ok {
				s.Filters = append(s.Filters, analytics.Filter{Breakdown: b, Value: v})
			} else {
				s.Breakdowns = append(s.Breakdowns, p)
			}
		}
	}
	return s, name, nil
}

func (c *fakeCat) Statistics() []analytics.Statistic {
	return []analytics.Statistic{{Name: "fake.ops", Kind: analytics.Counter}}
}

func (c *fakeCat) Define(name, desc, src string) (analytics.Statistic, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.user == nil {
		c.user = map[string]string{}
	}
	c.user[name] = src
	return analytics.Statistic{Name: name, Description: desc, User: true, Source: src}, nil
}

func (c *fakeCat) Plan(s *stats.Spec) (*stats.Plan, error) {
	if strings.HasPrefix(s.Statistic, "bad.") {
		return nil, &analytics.Error{Status: 400, Message: "unknown statistic " + s.Statistic}
	}
	pl := &stats.Plan{Spec: s, Program: "fake program of " + s.Statistic,
		Scale: func(i int) (int64, int64) { return int64(i) * 10, int64(i+1) * 10 }}
	if s.Statistic == "fake.lat" {
		pl.Stat.Kind = analytics.Distribution
		if s.Export { // another scale, as stats.ExportScale is
			pl.Program += " for export"
			pl.Scale = func(i int) (int64, int64) { return int64(i) * 100, int64(i+1) * 100 }
		}
	}
	return pl, nil
}

// kernel stands for the aggregation maps of the fake datasets: the test
// counts events into it, and every running session of the statistic
// counts them into its current generation, as each session's programs
// would.
type kernel struct {
	mu       sync.Mutex
	sessions map[string][]*fakeColl // statistic -> running sessions
	ns       map[string]uint64      // statistic -> BPF time
	failing  map[string]bool
	live     map[string]int
	// errs: a statistic whose reading fails; drops: entries its session
	// could not make (per session, from zero).
	errs  map[string]error
	drops map[string]uint64
}

func newKernel() *kernel {
	return &kernel{sessions: map[string][]*fakeColl{}, ns: map[string]uint64{}, failing: map[string]bool{},
		live: map[string]int{}, errs: map[string]error{}, drops: map[string]uint64{}}
}

func (k *kernel) add(stat, key string, n int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range k.sessions[stat] {
		c.gen.counts[key] += n
	}
	k.ns[stat] += uint64(n) * 100
}

func (k *kernel) addBucket(stat, key string, i int, n int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range k.sessions[stat] {
		b := c.gen.buckets[key]
		for len(b) <= i {
			b = append(b, 0)
		}
		b[i] += n
		c.gen.buckets[key] = b
	}
}

func (k *kernel) start(pl *stats.Plan, _ int) (collector, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.failing[pl.Spec.Statistic] {
		return nil, errors.New("the kernel refused the program")
	}
	k.live[pl.Spec.Statistic]++
	k.drops[pl.Spec.Statistic] = 0
	c := &fakeColl{k: k, stat: pl.Spec.Statistic, scale: pl.Scale, gen: newFakeGen()}
	k.sessions[c.stat] = append(k.sessions[c.stat], c)
	return c, nil
}

// fakeGen is one generation of a fake session's aggregation.
type fakeGen struct {
	counts  map[string]int64
	buckets map[string][]int64
}

func newFakeGen() *fakeGen {
	return &fakeGen{counts: map[string]int64{}, buckets: map[string][]int64{}}
}

// fakeColl is a session of the fake kernel, read by generations as
// dynamic is.
type fakeColl struct {
	k       *kernel
	stat    string
	scale   func(int) (int64, int64)
	gen     *fakeGen // current
	retired *fakeGen // swapped out, not read yet
}

func (c *fakeColl) swap() error {
	c.k.mu.Lock()
	defer c.k.mu.Unlock()
	c.retired, c.gen = c.gen, newFakeGen()
	return nil
}

func (c *fakeColl) settle() error { return nil }

func (c *fakeColl) prime(time.Time) error {
	c.k.mu.Lock()
	defer c.k.mu.Unlock()
	c.gen, c.retired = newFakeGen(), nil
	return nil
}

func (c *fakeColl) sample(time.Time) ([]analytics.Row, error) {
	c.k.mu.Lock()
	err := c.k.errs[c.stat]
	c.k.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if c.retired == nil {
		_ = c.swap()
	}
	c.k.mu.Lock()
	g := c.retired
	c.retired = nil
	c.k.mu.Unlock()
	a := &value.Aggregation{}
	fn := value.Count
	for key, n := range g.counts {
		a.Rows = append(a.Rows, value.AggRow{Keys: []value.Value{{Kind: value.String, Str: key}}, Val: value.AggValue{Count: n}})
	}
	for key, b := range g.buckets {
		fn = value.Quantize
		var keys []value.Value
		if key != "" {
			keys = []value.Value{{Kind: value.String, Str: key}}
		}
		a.Rows = append(a.Rows, value.AggRow{Keys: keys, Val: value.AggValue{Buckets: b}})
	}
	return rowsOf(a, fn, c.scale), nil
}
func (c *fakeColl) cost() (uint64, uint64) {
	c.k.mu.Lock()
	defer c.k.mu.Unlock()
	return c.k.ns[c.stat] / 100, c.k.ns[c.stat]
}
func (c *fakeColl) lost() uint64 {
	c.k.mu.Lock()
	defer c.k.mu.Unlock()
	return c.k.drops[c.stat]
}
func (c *fakeColl) close() {
	c.k.mu.Lock()
	defer c.k.mu.Unlock()
	c.k.live[c.stat]--
	ss := c.k.sessions[c.stat]
	for i, s := range ss {
		if s == c {
			c.k.sessions[c.stat] = append(ss[:i:i], ss[i+1:]...)
			break
		}
	}
}

// clock is an injected clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}
