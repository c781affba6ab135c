package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/tracer"
)

// prepare parses a dataset's name and plans its collection (for export
// as Prometheus metrics, or not).
func (a *Agent) prepare(name string, export bool) (*dataset, error) {
	spec, canon, err := a.cat.Parse(name)
	if err != nil {
		return nil, userErr(err)
	}
	spec.Export = export
	pl, err := a.cat.Plan(spec)
	if err != nil {
		return nil, userErr(err)
	}
	info := analytics.Dataset{Name: canon, Statistic: spec.Statistic, Filters: spec.Filters,
		Breakdowns: spec.Breakdowns, Program: pl.Program, Export: export}
	return &dataset{info: info, spec: spec, plan: pl}, nil
}

// run starts ds's collector and primes it.
func (a *Agent) run(ds *dataset) (collector, error) { return a.runPlan(ds.info.Name, ds.plan) }

// runPlan starts a collector for pl and primes it.
func (a *Agent) runPlan(name string, pl *stats.Plan) (collector, error) {
	c, err := a.start(pl, a.cfg.AggEntries)
	if err != nil {
		return nil, err
	}
	if err := c.prime(a.now()); err != nil {
		c.close()
		return nil, fmt.Errorf("priming %s: %w", name, err)
	}
	return c, nil
}

// Statistics lists the catalogue.
func (a *Agent) Statistics() []analytics.Statistic { return a.cat.Statistics() }

// Datasets lists the datasets, by name.
func (a *Agent) Datasets() []analytics.Dataset {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []analytics.Dataset
	for _, ds := range a.sorted() {
		out = append(out, a.describe(ds))
	}
	return out
}

// describe is what the API shows of ds (a.mu held).
func (a *Agent) describe(ds *dataset) analytics.Dataset {
	d := ds.info
	d.InCore, d.OnDisk = a.st.Size(d.Name)
	d.InCore += ds.ringBytes
	return d
}

// lookup finds a dataset by its name as given or in canonical form (a.mu
// held).
func (a *Agent) lookup(name string) *dataset {
	if ds := a.sets[name]; ds != nil {
		return ds
	}
	if _, canon, err := a.cat.Parse(name); err == nil {
		return a.sets[canon]
	}
	return nil
}

// lockDataset locks a.mu and finds a dataset by name: with the lock held
// when it is found, released when not (a 404).
func (a *Agent) lockDataset(name string) (*dataset, error) {
	a.mu.Lock()
	if ds := a.lookup(name); ds != nil {
		return ds, nil
	}
	a.mu.Unlock()
	return nil, notFound("dataset", name)
}

// Dataset describes one dataset.
func (a *Agent) Dataset(name string) (analytics.Dataset, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ds := a.lookup(name)
	if ds == nil {
		return analytics.Dataset{}, notFound("dataset", name)
	}
	return a.describe(ds), nil
}

func validState(s analytics.State) bool {
	return s == analytics.Open || s == analytics.Archived || s == analytics.Suspended
}

// Create parses spec, compiles and starts the dataset (archived unless
// another state is asked).
func (a *Agent) Create(spec string, state analytics.State) (analytics.Dataset, error) {
	if state == "" {
		state = analytics.Archived
	}
	if !validState(state) {
		return analytics.Dataset{}, &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("unknown state %q", state)}
	}
	a.createMu.Lock()
	defer a.createMu.Unlock()
	ds, err := a.prepare(spec, false)
	if err != nil {
		return analytics.Dataset{}, err
	}
	if err := a.exists(ds.info.Name); err != nil {
		return analytics.Dataset{}, err
	}
	var c collector
	if state != analytics.Suspended {
		if c, err = a.run(ds); err != nil {
			a.startFailed(ds.info.Name, err)
			return analytics.Dataset{}, err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		if c != nil {
			c.close()
		}
		return analytics.Dataset{}, errClosed
	}
	ds.coll, ds.info.State, ds.info.Created, ds.open = c, state, a.now().UTC(), state == analytics.Open
	ds.info.ID = a.newID()
	ds.last = a.st.Last(ds.info.Name)
	a.sets[ds.info.Name] = ds
	a.saveDataset(ds)
	a.event("created", ds.info.Name, "created %s", state)
	return a.describe(ds), nil
}

// startFailed records an event for a dataset that could not start for a
// reason other than the caller's (whose error says it all).
func (a *Agent) startFailed(name string, err error) {
	var ae *analytics.Error
	if errors.As(err, &ae) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.event("error", name, "the dataset could not start: %v", err)
}

func (a *Agent) exists(name string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sets[name] != nil {
		return &analytics.Error{Status: http.StatusConflict, Message: fmt.Sprintf("the dataset %q exists", name)}
	}
	return nil
}

// DefineStatistic adds a user's statistic: its D is compiled (never with
// destructive actions) to check it, and the catalogue checks its shape.
func (a *Agent) DefineStatistic(name, description, source string) (analytics.Statistic, error) {
	if err := a.checkD(source); err != nil {
		return analytics.Statistic{}, err
	}
	st, err := a.cat.Define(name, description, source)
	if err != nil {
		return analytics.Statistic{}, userErr(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.putJSON(keyStatistic+st.Name, statisticDoc{Name: st.Name, Description: description, Source: source})
	a.event("defined", "", "statistic %s defined", st.Name)
	return st, nil
}

// SetState suspends, resumes, opens or archives a dataset.
func (a *Agent) SetState(name string, state analytics.State) (analytics.Dataset, error) {
	if !validState(state) {
		return analytics.Dataset{}, &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("unknown state %q", state)}
	}
	a.createMu.Lock()
	defer a.createMu.Unlock()
	ds, err := a.lockDataset(name)
	if err != nil {
		return analytics.Dataset{}, err
	}
	from := ds.info.State
	resume := ds.coll == nil && state != analytics.Suspended
	a.mu.Unlock()
	var c collector
	if resume {
		var err error
		if c, err = a.run(ds); err != nil {
			a.mu.Lock()
			a.event("error", ds.info.Name, "the dataset could not resume: %v", err)
			a.mu.Unlock()
			return analytics.Dataset{}, err
		}
	}
	a.mu.Lock()
	var stopped collector
	switch {
	case state == analytics.Suspended:
		stopped = a.stop(ds, a.now())
	case resume:
		ds.coll = c
	}
	switch {
	case state == analytics.Open:
		ds.open = true
	case state == analytics.Archived && ds.open:
		a.flushRing(ds)
		ds.open = false
	}
	ds.info.State = state
	a.saveDataset(ds)
	if from != state || resume {
		a.event(transition(from, state, resume), ds.info.Name, "%s -> %s", from, state)
	}
	d := a.describe(ds)
	a.mu.Unlock()
	if stopped != nil {
		stopped.close()
	}
	return d, nil
}

// SetExport marks a dataset for export as Prometheus metrics, or unmarks
// it. A built-in distribution is quantized on another scale when
// exported (stats.ExportScale): a running one is restarted on it, and
// what it counted in the current second is kept. The new session is
// attached first but counts only from the instant the old one's interval
// ends (both swapped back to back): an event is counted by one of them,
// never both.
func (a *Agent) SetExport(name string, export bool) (analytics.Dataset, error) {
	a.createMu.Lock()
	defer a.createMu.Unlock()
	ds, err := a.lockDataset(name)
	if err != nil {
		return analytics.Dataset{}, err
	}
	if ds.info.Export == export {
		defer a.mu.Unlock()
		return a.describe(ds), nil
	}
	spec := *ds.spec
	spec.Export = export
	replan := ds.plan != nil && ds.plan.Program != "" && ds.plan.Stat.Kind == analytics.Distribution
	running := ds.coll != nil
	leader, _ := ds.coll.(*dynamic)
	a.mu.Unlock()
	var pl *stats.Plan
	var c collector
	var prog *tracer.Program
	if replan {
		var err error
		if pl, err = a.cat.Plan(&spec); err != nil {
			return analytics.Dataset{}, userErr(err)
		}
		if running && leader != nil {
			// compiled here, started under the lock: no second may end
			// between the new session's start and the hand-over
			if prog, err = compile(pl.Program, a.cfg.AggEntries); err != nil {
				return analytics.Dataset{}, err
			}
		} else if running {
			if c, err = a.start(pl, a.cfg.AggEntries); err != nil {
				return analytics.Dataset{}, err
			}
		}
	}
	a.mu.Lock()
	if prog != nil && ds.coll != nil && ds.coll == collector(leader) && !leader.swapped {
		d, err := startCompiled(prog, pl, leader)
		if err != nil {
			a.mu.Unlock()
			return analytics.Dataset{}, err
		}
		c = d
	} else if prog != nil && ds.coll != nil {
		// restarted meanwhile: an ordinary start (primed at the hand-over)
		d, err := startCompiled(prog, pl, nil)
		if err != nil {
			a.mu.Unlock()
			return analytics.Dataset{}, err
		}
		c, leader = d, nil
	}
	var old collector
	if replan {
		if c != nil && ds.coll != nil {
			now := a.now()
			if err := a.handOver(ds.coll, c, leader, now); err != nil {
				a.mu.Unlock()
				c.close()
				return analytics.Dataset{}, fmt.Errorf("starting %s again: %w", ds.info.Name, err)
			}
			old = a.stop(ds, now)
			ds.coll = c
		} else if c != nil {
			old = c // suspended meanwhile
		}
		ds.spec, ds.plan, ds.info.Program = &spec, pl, pl.Program
	}
	ds.info.Export = export
	a.saveDataset(ds)
	a.event("export", ds.info.Name, "exported as metrics: %v", export)
	d := a.describe(ds)
	a.mu.Unlock()
	if old != nil {
		old.close()
	}
	return d, nil
}

// handOver ends the interval of prev, the running collector, and starts
// next's at the same instant (a.mu held): next was started to follow
// leader, and if prev is still that leader (not swapped yet), one swap
// flips both. Otherwise (a static collector, or the dataset restarted
// meanwhile) prev is swapped, then next primed: what falls between the
// two swaps is counted by neither.
func (a *Agent) handOver(prev, next collector, leader *dynamic, now time.Time) error {
	if d, ok := next.(*dynamic); ok && leader != nil && prev == collector(leader) && !leader.swapped {
		_ = prev.swap() // a failure is prev's sample to report
		return d.takeOver()
	}
	_ = prev.swap()
	return next.prime(now)
}

// Sampled is the end of the last second sampled: Data has every second
// before it, and none after.
func (a *Agent) Sampled() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.done
}

func transition(from, to analytics.State, resume bool) string {
	switch {
	case to == analytics.Suspended:
		return "suspended"
	case resume:
		return "resumed"
	case to == analytics.Open:
		return "opened"
	}
	return "archived"
}

// Destroy stops a dataset and deletes its data.
func (a *Agent) Destroy(name string) error {
	a.createMu.Lock()
	defer a.createMu.Unlock()
	ds, err := a.lockDataset(name)
	if err != nil {
		return err
	}
	delete(a.sets, ds.info.Name)
	c := ds.coll
	ds.coll = nil
	err = a.st.Delete(ds.info.Name)
	if e := a.st.DeleteMeta(keyDataset + ds.info.Name); err == nil {
		err = e
	}
	a.event("destroyed", ds.info.Name, "destroyed")
	a.mu.Unlock()
	if c != nil {
		c.close()
	}
	if err != nil {
		return fmt.Errorf("destroying %s: %w", ds.info.Name, err)
	}
	return nil
}

// Data returns a dataset's intervals of granularity g from start for n
// intervals (the last n with start zero): from the store and, for seconds
// the store does not have (an open dataset's), from memory. With wait, a
// range reaching the current second waits until it is sampled (or ctx is
// done).
func (a *Agent) Data(ctx context.Context, name string, start time.Time, n int, g analytics.Granularity, wait bool) ([]analytics.Second, error) {
	if g == "" {
		g = analytics.PerSecond
	}
	if g != analytics.PerSecond && g != analytics.PerMinute && g != analytics.PerHour {
		return nil, &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("unknown granularity %q", g)}
	}
	if n <= 0 {
		return nil, &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("%d intervals asked: at least one", n)}
	}
	w := g.Width()
	ds, err := a.lockDataset(name)
	if err != nil {
		return nil, err
	}
	if wait {
		target := a.now().Truncate(time.Second).Add(time.Second)
		if !start.IsZero() {
			target = minTime(target, start.Truncate(w).Add(time.Duration(n)*w))
		}
		if err := a.waitFor(ctx, target); err != nil {
			a.mu.Unlock()
			return nil, err
		}
		if a.lookup(name) != ds {
			a.mu.Unlock()
			return nil, notFound("dataset", name)
		}
	}
	from, to := a.window(start, n, w)
	dsName := ds.info.Name
	gauge := ds.plan != nil && ds.plan.Stat.Kind == analytics.Gauge
	var ring []analytics.Second
	for _, s := range ds.ring {
		if !s.Time.Before(from) && s.Time.Before(to) {
			ring = append(ring, s)
		}
	}
	a.mu.Unlock()
	secs, err := a.st.Read(dsName, from, to, g)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dsName, err)
	}
	last := a.st.Last(dsName)
	var mem []analytics.Second
	for _, s := range ring {
		if s.Time.After(last) {
			mem = append(mem, s)
		}
	}
	out := joinSeconds(secs, rollup(mem, g))
	if gauge {
		averageGauge(out)
	}
	return out, nil
}

// averageGauge turns the sums of a gauge's levels over coarser intervals
// into their averages (rounded to nearest): a minute of cpu.utilization is
// the mean of its seconds, not their sum. A second is its own level.
func averageGauge(secs []analytics.Second) {
	for i := range secs {
		n := int64(secs[i].Samples)
		if n <= 1 {
			continue
		}
		for j := range secs[i].Rows {
			v := secs[i].Rows[j].Value
			if v >= 0 {
				secs[i].Rows[j].Value = (v + n/2) / n
			} else {
				secs[i].Rows[j].Value = (v - n/2) / n
			}
		}
	}
}

// waitFor waits until the seconds before target are sampled (a.mu held;
// released while waiting).
func (a *Agent) waitFor(ctx context.Context, target time.Time) error {
	for a.done.Before(target) && !a.closed {
		ch := a.ticked
		a.mu.Unlock()
		select {
		case <-ctx.Done():
			a.mu.Lock()
			return ctx.Err()
		case <-ch:
		}
		a.mu.Lock()
	}
	return nil
}

// window is the range [from, to) of n intervals of width w from start,
// or the last n sampled (a.mu held).
func (a *Agent) window(start time.Time, n int, w time.Duration) (time.Time, time.Time) {
	span := time.Duration(n) * w
	if !start.IsZero() {
		from := start.Truncate(w)
		return from, from.Add(span)
	}
	end := a.done
	if end.IsZero() {
		end = a.now().Truncate(time.Second)
	}
	if t := end.Truncate(w); t.Before(end) {
		end = t.Add(w)
	}
	return end.Add(-span), end
}

func minTime(x, y time.Time) time.Time {
	if x.Before(y) {
		return x
	}
	return y
}

// joinSeconds merges two time-ordered lists, summing intervals that start
// at the same time.
func joinSeconds(x, y []analytics.Second) []analytics.Second {
	if len(y) == 0 {
		return x
	}
	out := append(append([]analytics.Second(nil), x...), y...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	var j []analytics.Second
	for _, s := range out {
		if n := len(j); n > 0 && j[n-1].Time.Equal(s.Time) {
			j[n-1].Samples += s.Samples
			j[n-1].Rows = merge(j[n-1].Rows, s.Rows)
			continue
		}
		j = append(j, s)
	}
	return j
}

// Prune discards the tier's data older than before.
func (a *Agent) Prune(g analytics.Granularity, before time.Time) error {
	if g != analytics.PerSecond && g != analytics.PerMinute && g != analytics.PerHour {
		return &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("unknown granularity %q", g)}
	}
	return a.st.Prune(g, before)
}

// Events lists the agent's events, oldest first.
func (a *Agent) Events() []analytics.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]analytics.Event(nil), a.events...)
}

// Worksheets lists the saved worksheets, by name.
func (a *Agent) Worksheets() []analytics.Worksheet {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]analytics.Worksheet, 0, len(a.sheets))
	for _, w := range a.sheets {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || out[i].Name == out[j].Name && out[i].ID < out[j].ID
	})
	return out
}

// SaveWorksheet saves a worksheet, giving it an ID if it has none.
func (a *Agent) SaveWorksheet(w analytics.Worksheet) (analytics.Worksheet, error) {
	if w.Name == "" {
		return w, &analytics.Error{Status: http.StatusBadRequest, Message: "a worksheet needs a name"}
	}
	if w.ID == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return w, err
		}
		w.ID = hex.EncodeToString(b[:])
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	w.Updated = a.now().UTC()
	a.sheets[w.ID] = w
	a.putJSON(keySheet+w.ID, w)
	return w, nil
}

// DeleteWorksheet deletes a saved worksheet.
func (a *Agent) DeleteWorksheet(id string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sheets[id]; !ok {
		return notFound("worksheet", id)
	}
	delete(a.sheets, id)
	return a.st.DeleteMeta(keySheet + id)
}
