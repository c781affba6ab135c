package agent

import (
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/store"
)

// dataset is one dataset as the agent runs it. Its fields are guarded by
// Agent.mu.
type dataset struct {
	info analytics.Dataset
	spec *stats.Spec
	plan *stats.Plan
	// coll collects it; nil while suspended (or when it failed to start).
	coll collector
	// pend is the part of the current second read when it was suspended:
	// the next tick adds to it or appends it.
	pend *analytics.Second
	// open: kept in memory only (also while suspended); otherwise
	// appended to the store.
	open bool
	// last is the start of the last second appended or kept.
	last time.Time
	// ring holds an open dataset's recent seconds.
	ring      []analytics.Second
	ringBytes int64
	// cost: the last cumulative reading and the window of the last
	// seconds' differences.
	costPrimed       bool
	lastRuns, lastNs uint64
	lastCost         time.Time
	window           []costSample
	share            float64 // of one CPU, over the window
	// lost: aggregation entries dropped, as last read and as last
	// reported.
	lostSeen     uint64
	lostReported int64
	lostAt       time.Time
	// lastErr is the last error reading it, reported once.
	lastErr string
}

type costSample struct {
	runs, ns uint64
	dt       time.Duration
}

// collect samples ds for sec and keeps the second (a.mu held).
func (a *Agent) collect(ds *dataset, sec, now time.Time) {
	if ds.pend != nil && ds.pend.Time.Before(sec) {
		a.commit(ds, *ds.pend)
		ds.pend = nil
	}
	if ds.coll == nil {
		if ds.pend != nil {
			a.commit(ds, *ds.pend)
			ds.pend = nil
		}
		return
	}
	s := analytics.Second{Time: sec, Samples: 1, Rows: a.sample(ds, now)}
	if ds.pend != nil {
		s.Rows = merge(ds.pend.Rows, s.Rows)
		ds.pend = nil
	}
	a.commit(ds, s)
	a.checkLost(ds, now)
}

// sample reads ds's rows since its last sample, folded to the key limit
// (a.mu held).
func (a *Agent) sample(ds *dataset, now time.Time) []analytics.Row {
	rows, err := ds.coll.sample(now)
	switch {
	case err != nil && err.Error() != ds.lastErr:
		a.event("error", ds.info.Name, "reading the dataset: %v", err)
		ds.lastErr = err.Error()
	case err == nil:
		ds.lastErr = ""
	}
	rows, folded := fold(rows, a.cfg.KeyLimit)
	ds.info.Overflow += int64(folded)
	return rows
}

// commit keeps one second: in the store for an archived (or suspended)
// dataset, in memory for an open one (a.mu held). A second not after the
// last one kept (an agent restarted within the second it stopped in)
// goes to the next second, so that nothing is lost.
func (a *Agent) commit(ds *dataset, s analytics.Second) {
	if !s.Time.After(ds.last) && !ds.last.IsZero() {
		s.Time = ds.last.Add(time.Second)
	}
	ds.last = s.Time
	if a.observer != nil {
		a.kept = append(a.kept, store.Sample{Dataset: ds.info.Name, Second: s})
	}
	if ds.open {
		ds.ring = append(ds.ring, s)
		ds.ringBytes += bytesOf(s)
		for len(ds.ring) > a.cfg.Memory {
			ds.ringBytes -= bytesOf(ds.ring[0])
			ds.ring = ds.ring[1:]
		}
		return
	}
	a.batch = append(a.batch, store.Sample{Dataset: ds.info.Name, Second: s})
}

// flush appends the seconds of the tick to the store in one commit, durable
// when it returns (a.mu held).
func (a *Agent) flush() {
	if len(a.batch) == 0 {
		return
	}
	if err := a.st.AppendBatch(a.batch); err != nil {
		for _, b := range a.batch {
			a.event("error", b.Dataset, "appending %s to the store: %v", b.Second.Time.UTC().Format(time.RFC3339), err)
		}
	}
	a.batch = a.batch[:0]
}

// flushRing appends an open dataset's seconds that the store does not
// have yet, as it becomes archived (a.mu held).
func (a *Agent) flushRing(ds *dataset) {
	last := a.st.Last(ds.info.Name)
	for _, s := range ds.ring {
		if s.Time.After(last) {
			if err := a.st.Append(ds.info.Name, s); err != nil {
				a.event("error", ds.info.Name, "appending to the store: %v", err)
				break
			}
		}
	}
	ds.ring, ds.ringBytes = nil, 0
}

// stop suspends collection: what was counted since the last tick is kept
// for the current second, and the collector is returned for the caller
// to close outside the lock (a.mu held).
func (a *Agent) stop(ds *dataset, now time.Time) collector {
	c := ds.coll
	if c == nil {
		return nil
	}
	rows := a.sample(ds, now)
	sec := now.Truncate(time.Second)
	if ds.pend != nil {
		rows = merge(ds.pend.Rows, rows)
		sec = ds.pend.Time
	}
	ds.pend = &analytics.Second{Time: sec, Samples: 1, Rows: rows}
	ds.coll = nil
	ds.lostSeen = 0 // the next session counts from zero
	ds.costPrimed, ds.window, ds.share = false, nil, 0
	ds.info.EventsPerSecond, ds.info.NsPerEvent = 0, 0
	return c
}

// measure reads ds's BPF cost and averages it over the window (a.mu held).
func (a *Agent) measure(ds *dataset, now time.Time) {
	if ds.coll == nil {
		return
	}
	runs, ns := ds.coll.cost()
	if !ds.costPrimed {
		ds.costPrimed, ds.lastRuns, ds.lastNs, ds.lastCost = true, runs, ns, now
		return
	}
	dt := now.Sub(ds.lastCost)
	if dt <= 0 {
		return
	}
	ds.window = append(ds.window, costSample{runs - ds.lastRuns, ns - ds.lastNs, dt})
	if len(ds.window) > costWindow {
		ds.window = ds.window[1:]
	}
	ds.lastRuns, ds.lastNs, ds.lastCost = runs, ns, now
	var r, n uint64
	var t time.Duration
	for _, w := range ds.window {
		r, n, t = r+w.runs, n+w.ns, t+w.dt
	}
	ds.info.EventsPerSecond = float64(r) / t.Seconds()
	ds.info.NsPerEvent = 0
	if r > 0 {
		ds.info.NsPerEvent = float64(n) / float64(r)
	}
	ds.share = float64(n) / float64(t.Nanoseconds())
}

// overBudget suspends the dearest dataset when all of them together take
// more of a CPU than the budget, and returns its collector to close (a.mu
// held). One a second: the others are judged again without it.
func (a *Agent) overBudget() collector {
	if a.cfg.Budget < 0 {
		return nil
	}
	var total float64
	var dearest *dataset
	for _, ds := range a.sets {
		if ds.coll == nil || len(ds.window) < costMin {
			continue
		}
		total += ds.share
		// The datasets kept on (the defaults) are left on forever:
		// the budget counts them, but suspends the others (syscall.ops
		// under a syscall storm is what one needs most then).
		if !a.keepOn[ds.info.Name] && (dearest == nil || ds.share > dearest.share) {
			dearest = ds
		}
	}
	if dearest == nil || total <= a.cfg.Budget {
		return nil
	}
	share := dearest.share
	ns, evps := dearest.info.NsPerEvent, dearest.info.EventsPerSecond
	c := a.stop(dearest, a.now())
	dearest.info.State = analytics.Suspended
	a.saveDataset(dearest)
	a.event("auto-suspended", dearest.info.Name,
		"its BPF programs took %.2f%% of a CPU (%.0f events/s at %.0f ns each); all datasets took %.2f%%, over the budget of %.2f%%",
		100*share, evps, ns, 100*total, 100*a.cfg.Budget)
	return c
}

// checkLost adds the aggregation entries ds could not make to its count,
// and reports them at most once a minute (a.mu held).
func (a *Agent) checkLost(ds *dataset, now time.Time) {
	n := ds.coll.lost()
	if n > ds.lostSeen {
		ds.info.Dropped += int64(n - ds.lostSeen)
		ds.lostSeen = n
	}
	if ds.info.Dropped > ds.lostReported && now.Sub(ds.lostAt) >= dropReport {
		a.event("drops", ds.info.Name, "%d events not counted: the aggregation was full (%d keys in a second)",
			ds.info.Dropped-ds.lostReported, a.cfg.AggEntries)
		ds.lostReported, ds.lostAt = ds.info.Dropped, now
	}
}
