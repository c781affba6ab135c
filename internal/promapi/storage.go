package promapi

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/promexp"
)

// queryable is a storage.Queryable over the agent's datasets.
type queryable struct{ a *API }

func (q queryable) Querier(mint, maxt int64) (storage.Querier, error) {
	return &querier{a: q.a, mint: mint, maxt: maxt}, nil
}

type querier struct {
	a          *API
	mint, maxt int64
}

func (q *querier) Close() error { return nil }

// target is a dataset and the families it gives.
type target struct {
	d  analytics.Dataset
	st analytics.Statistic
}

// names are the metric names of a statistic's family: a distribution's
// native histogram and its classic series.
func names(st analytics.Statistic) []string {
	n, _ := promexp.MetricName(st)
	if st.Kind == analytics.Distribution {
		return []string{n, n + "_bucket", n + "_count", n + "_sum"}
	}
	return []string{n}
}

// targets are the datasets whose series may match ms (by name and
// dataset: the other matchers are applied to the series).
func (q *querier) targets(ms []*labels.Matcher) []target {
	stats := map[string]analytics.Statistic{}
	for _, s := range q.a.src.Statistics() {
		stats[s.Name] = s
	}
	var out []target
	for _, d := range q.a.src.Datasets() {
		st, ok := stats[d.Statistic]
		if !ok {
			continue
		}
		if !q.match(ms, "dataset", d.Name) || !q.match(ms, "host", q.a.cfg.Host) ||
			!q.match(ms, "instance", q.a.cfg.Host) || !q.match(ms, "job", q.a.cfg.Job) {
			continue
		}
		any := false
		for _, n := range append(names(st), promexp.FoldedName) {
			any = any || q.match(ms, model.MetricNameLabel, n)
		}
		if any {
			out = append(out, target{d, st})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].d.Name < out[j].d.Name })
	return out
}

func (q *querier) match(ms []*labels.Matcher, name, value string) bool {
	for _, m := range ms {
		if m.Name == name && !m.Matches(value) {
			return false
		}
	}
	return true
}

// Select builds the series of the matching datasets over the hints'
// range (the querier's without hints): a sample at the end of every
// second.
func (q *querier) Select(ctx context.Context, _ bool, hints *storage.SelectHints, ms ...*labels.Matcher) storage.SeriesSet {
	mint, maxt := q.mint, q.maxt
	if hints != nil {
		mint, maxt = hints.Start, hints.End
	}
	var all []*built
	for _, tg := range q.targets(ms) {
		ss, err := q.a.build(ctx, tg, mint, maxt)
		if err != nil {
			return storage.ErrSeriesSet(err)
		}
		for _, s := range ss {
			if matches(s.labels, ms) {
				all = append(all, s)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return labels.Compare(all[i].labels, all[j].labels) < 0 })
	return &seriesSet{list: all, i: -1}
}

func matches(ls labels.Labels, ms []*labels.Matcher) bool {
	for _, m := range ms {
		if !m.Matches(ls.Get(m.Name)) {
			return false
		}
	}
	return true
}

// LabelNames are the labels of the series matching ms (all series
// without).
func (q *querier) LabelNames(ctx context.Context, _ *storage.LabelHints, ms ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	seen := map[string]bool{}
	set := q.Select(ctx, false, nil, ms...)
	for set.Next() {
		set.At().Labels().Range(func(l labels.Label) { seen[l.Name] = true })
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil, set.Err()
}

// LabelValues are the values of a label in the series matching ms.
func (q *querier) LabelValues(ctx context.Context, name string, _ *storage.LabelHints, ms ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	seen := map[string]bool{}
	set := q.Select(ctx, false, nil, ms...)
	for set.Next() {
		if v := set.At().Labels().Get(name); v != "" {
			seen[v] = true
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil, set.Err()
}

// built is one series built from the store.
type built struct {
	labels  labels.Labels
	samples []chunks.Sample
}

func (b *built) Labels() labels.Labels { return b.labels }

func (b *built) Iterator(it chunkenc.Iterator) chunkenc.Iterator {
	return storage.NewListSeriesIterator(samples(b.samples))
}

type samples []chunks.Sample

func (s samples) Get(i int) chunks.Sample { return s[i] }
func (s samples) Len() int                { return len(s) }

type seriesSet struct {
	list []*built
	i    int
}

func (s *seriesSet) Next() bool                        { s.i++; return s.i < len(s.list) }
func (s *seriesSet) At() storage.Series                { return s.list[s.i] }
func (s *seriesSet) Err() error                        { return nil }
func (s *seriesSet) Warnings() annotations.Annotations { return nil }

// fSample and hSample are a float's and a native histogram's sample.
type fSample struct {
	t int64
	f float64
}

func (s fSample) T() int64                      { return s.t }
func (s fSample) ST() int64                     { return 0 }
func (s fSample) F() float64                    { return s.f }
func (s fSample) H() *histogram.Histogram       { return nil }
func (s fSample) FH() *histogram.FloatHistogram { return nil }
func (s fSample) Type() chunkenc.ValueType      { return chunkenc.ValFloat }
func (s fSample) Copy() chunks.Sample           { return s }

type hSample struct {
	t int64
	h *histogram.Histogram
}

func (s hSample) T() int64                      { return s.t }
func (s hSample) ST() int64                     { return 0 }
func (s hSample) F() float64                    { return 0 }
func (s hSample) H() *histogram.Histogram       { return s.h }
func (s hSample) FH() *histogram.FloatHistogram { return s.h.ToFloat(nil) }
func (s hSample) Type() chunkenc.ValueType      { return chunkenc.ValHistogram }
func (s hSample) Copy() chunks.Sample           { return hSample{s.t, s.h.Copy()} }

// origin is where a dataset's counters start: its creation's second.
func origin(d analytics.Dataset) time.Time { return d.Created.Truncate(time.Second) }

// build makes a dataset's series with their samples in [mint, maxt]:
// the totals from the dataset's creation to the first second (read from
// the coarsest tiers that hold whole intervals), then a sample at the
// end of every second up to the last one sampled.
func (a *API) build(ctx context.Context, tg target, mint, maxt int64) ([]*built, error) {
	from := time.UnixMilli(mint).Add(-time.Second).Truncate(time.Second) // the second whose end is the first sample
	org := origin(tg.d)
	if from.Before(org) {
		from = org
	}
	to := time.UnixMilli(maxt).Truncate(time.Second) // samples at ends <= maxt
	if sampled := a.src.Sampled().Truncate(time.Second); sampled.Before(to) {
		to = sampled
	}
	if tg.st.Kind != analytics.Gauge {
		// Where the seconds are gone, the totals start at an hour's
		// boundary, so that the coarser tiers' intervals that stand in
		// for them hold nothing the totals already have.
		if first, err := a.src.Data(ctx, tg.d.Name, from, 1, analytics.PerSecond, false); err == nil && len(first) == 0 {
			if h := from.Truncate(time.Hour); !h.Before(org) {
				from = h
			}
		}
	}
	tot := promexp.NewTotals(tg.d, tg.st, org)
	if tg.st.Kind != analytics.Gauge {
		if err := tot.AddRange(ctx, a.src, from, a.cfg.MaxSeries); err != nil {
			return nil, err
		}
	}
	tot.Add(nil, from, a.cfg.MaxSeries)
	out := map[string]*built{}
	var order []string
	n := int(to.Sub(from) / time.Second)
	emit := func(end time.Time) {
		if ms := end.UnixMilli(); ms >= mint && ms <= maxt {
			tot.Metrics(func(m promexp.Metric) { a.emit(out, &order, m, ms, n) })
		}
	}
	for at := from; at.Before(to); {
		end := minTime(to, at.Truncate(time.Hour).Add(time.Hour))
		next, err := a.chunk(ctx, tg.d.Name, tg.st.Kind == analytics.Gauge, tot, at, end, emit)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", tg.d.Name, err)
		}
		at = next
	}
	res := make([]*built, 0, len(order))
	for _, id := range order {
		res = append(res, out[id])
	}
	return res, nil
}

// chunk adds the intervals of [at, end), within one hour, to tot and
// emits the samples at their ends. Seconds are read where the store
// keeps them. Where they were pruned, a whole minute or hour of the
// coarser tier that holds more of it stands in, with one sample at its
// end, and the seconds that no whole interval can stand for have no
// sample (their events are known only with the interval's). A second
// that no tier holds (sonded was not running, or the dataset suspended)
// is one without events, as remote-write sends it. It returns end.
func (a *API) chunk(ctx context.Context, name string, gauge bool, tot *promexp.Totals, at, end time.Time, emit func(time.Time)) (time.Time, error) {
	n := int(end.Sub(at) / time.Second)
	secs, err := a.src.Data(ctx, name, at, n, analytics.PerSecond, false)
	if err != nil {
		return at, err
	}
	byTime := make(map[int64]analytics.Second, len(secs))
	for _, s := range secs {
		byTime[s.Time.Unix()] = s
	}
	second := func(t time.Time) {
		tot.Add([]analytics.Second{byTime[t.Unix()]}, t.Add(time.Second), a.cfg.MaxSeries)
		emit(t.Add(time.Second))
	}
	if len(secs) == n || gauge {
		// a gauge's level needs no history: a coarser interval's
		// sum of levels is no level
		for t := at; t.Before(end); t = t.Add(time.Second) {
			second(t)
		}
		return end, nil
	}
	present := func(from time.Time, w time.Duration) int {
		k := 0
		for t := from; t.Before(from.Add(w)) && t.Before(end); t = t.Add(time.Second) {
			if _, ok := byTime[t.Unix()]; ok {
				k++
			}
		}
		return k
	}
	full := func(t time.Time, w time.Duration) bool { return t.Truncate(w).Equal(t) && !t.Add(w).After(end) }
	h0 := at.Truncate(time.Hour)
	rows, err := a.src.Data(ctx, name, h0, 60, analytics.PerMinute, false)
	if err != nil {
		return at, err
	}
	minutes := map[int64]analytics.Second{}
	covered := 0 // the seconds the minutes or the seconds hold
	for _, r := range rows {
		minutes[r.Time.Unix()] = r
	}
	for t := h0; t.Before(h0.Add(time.Hour)); t = t.Add(time.Minute) {
		covered += max(minutes[t.Unix()].Samples, present(t, time.Minute))
	}
	hour, err := a.src.Data(ctx, name, h0, 1, analytics.PerHour, false)
	if err != nil {
		return at, err
	}
	hourHolds := len(hour) == 1 && hour[0].Samples > covered
	if hourHolds && full(at, time.Hour) {
		tot.Add(hour, end, a.cfg.MaxSeries)
		emit(end)
		return end, nil
	}
	for t := at; t.Before(end); {
		m, mok := minutes[t.Truncate(time.Minute).Unix()]
		minuteHolds := mok && m.Samples > present(t.Truncate(time.Minute), time.Minute)
		if minuteHolds && full(t, time.Minute) {
			tot.Add([]analytics.Second{m}, t.Add(time.Minute), a.cfg.MaxSeries)
			emit(t.Add(time.Minute))
			t = t.Add(time.Minute)
			continue
		}
		if _, ok := byTime[t.Unix()]; ok || !minuteHolds && !hourHolds {
			second(t)
		}
		t = t.Add(time.Second)
	}
	return end, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// emit appends m's samples at ms to the series of out; a new series has
// room for n samples.
func (a *API) emit(out map[string]*built, order *[]string, m promexp.Metric, ms int64, n int) {
	add := func(name, le string, s chunks.Sample) {
		// the series' identity: its name, le and label values (the
		// family's labels are in a fixed order)
		var id strings.Builder
		id.WriteString(name)
		id.WriteByte(0)
		id.WriteString(le)
		for _, l := range m.Labels {
			id.WriteByte(0)
			id.WriteString(l.Name)
			id.WriteByte(1)
			id.WriteString(l.Value)
		}
		s0 := out[id.String()]
		if s0 == nil {
			b := labels.NewScratchBuilder(len(m.Labels) + 5)
			b.Add(model.MetricNameLabel, name)
			b.Add("host", a.cfg.Host)
			b.Add("instance", a.cfg.Host)
			b.Add("job", a.cfg.Job)
			for _, l := range m.Labels {
				b.Add(l.Name, l.Value)
			}
			if le != "" {
				b.Add("le", le)
			}
			b.Sort()
			s0 = &built{labels: b.Labels(), samples: make([]chunks.Sample, 0, n)}
			out[id.String()] = s0
			*order = append(*order, id.String())
		}
		s0.samples = append(s0.samples, s)
	}
	if m.Kind != analytics.Distribution {
		add(m.Name, "", fSample{ms, m.Value})
		return
	}
	for _, c := range m.Classic {
		add(m.Name+"_bucket", promexp.FormatLE(c.LE), fSample{ms, float64(c.Count)})
	}
	add(m.Name+"_bucket", "+Inf", fSample{ms, float64(m.Count)})
	add(m.Name+"_count", "", fSample{ms, float64(m.Count)})
	add(m.Name+"_sum", "", fSample{ms, math.NaN()})
	if m.Native != nil {
		h := &histogram.Histogram{Schema: 0, ZeroThreshold: m.Native.ZeroThreshold, ZeroCount: m.Native.ZeroCount,
			Count: m.Count, Sum: math.NaN(), PositiveBuckets: m.Native.Deltas}
		for _, s := range m.Native.Spans {
			h.PositiveSpans = append(h.PositiveSpans, histogram.Span{Offset: s.Offset, Length: s.Length})
		}
		add(m.Name, "", hSample{ms, h})
	}
}
