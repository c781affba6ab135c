package promexp

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Totals are one exported dataset's totals as /metrics serves them (the
// same families, labels, folding into "other" and bucket mapping), for
// the other writer of these series: remote-write, which adds the
// dataset's seconds one at a time and keeps its totals across restarts
// (State, RestoreTotals).
type Totals struct {
	x *exported
	// cached for Metrics: the series' ids in order, and their labels
	// (series are only ever added)
	name   string
	ids    []string
	labels map[string][]Label
}

// NewTotals starts a dataset's totals at next (a second's start): a
// counter's value at a time T is the sum of its seconds in [next, T).
func NewTotals(d analytics.Dataset, st analytics.Statistic, next time.Time) *Totals {
	x := &exported{stat: st, next: next, series: map[string]*series{}}
	x.bind(d)
	return &Totals{x: x}
}

// Next is the first second not yet added.
func (t *Totals) Next() time.Time { return t.x.next }

// Statistic is the dataset's statistic.
func (t *Totals) Statistic() analytics.Statistic { return t.x.stat }

// Add adds secs, in time order and within [Next, to), and moves Next to
// to; a second absent from secs had no rows.
func (t *Totals) Add(secs []analytics.Second, to time.Time, maxSeries int) {
	if maxSeries <= 1 {
		maxSeries = DefaultMaxSeries
	}
	t.x.add(secs, maxSeries)
	t.x.next = to
}

// Clone is a deep copy: what a batch adds to until the receiver has it.
func (t *Totals) Clone() *Totals {
	x := *t.x
	x.series = make(map[string]*series, len(t.x.series))
	for id, s := range t.x.series {
		c := *s
		c.buckets = make(map[[2]int64]int64, len(s.buckets))
		for b, n := range s.buckets {
			c.buckets[b] = n
		}
		x.series[id] = &c
	}
	return &Totals{x: &x, name: t.name, ids: t.ids, labels: t.labels}
}

// Label is a label's name and value.
type Label struct{ Name, Value string }

// ClassicBucket is a classic histogram's cumulative bucket.
type ClassicBucket struct {
	LE    float64
	Count uint64
}

// Span is a run of native buckets: Offset from the previous span's end
// (from index 0 for the first), Length buckets.
type Span struct {
	Offset int32
	Length uint32
}

// Native is a native histogram of schema 0 (exact only: see
// docs/prometheus.md): its zero bucket and positive buckets as spans and
// deltas of counts, the protobuf's encoding.
type Native struct {
	ZeroThreshold float64
	ZeroCount     uint64
	Spans         []Span
	Deltas        []int64
}

// Metric is one series of a Totals' family at Next.
type Metric struct {
	// Name is the family's name (a histogram's classic series add
	// _bucket, _count and _sum to it).
	Name string
	// Labels: "dataset" and the non-empty breakdown labels, in the
	// family's order (shared between calls: not to be changed).
	Labels []Label
	Kind   analytics.Kind
	// Value of a counter or a gauge.
	Value float64
	// A distribution's event count, classic buckets, and native
	// buckets when exact (nil otherwise).
	Count   uint64
	Classic []ClassicBucket
	Native  *Native
}

// FoldedName is the family counting the rows folded into "other".
const FoldedName = "sonde_export_folded_rows_total"

// Metrics calls fn with each series of the family, in the order of
// their keys, then with the dataset's folded-rows counter.
func (t *Totals) Metrics(fn func(Metric)) {
	x := t.x
	if len(t.ids) != len(x.series) || t.name == "" {
		t.name, _ = MetricName(x.stat)
		names := make([]string, len(x.family.breakdowns))
		for i, b := range x.family.breakdowns {
			names[i] = labelName(b)
		}
		ids := make([]string, 0, len(x.series))
		labels := make(map[string][]Label, len(x.series))
		for id, s := range x.series {
			ids = append(ids, id)
			ls := []Label{{"dataset", x.family.dataset}}
			for i, v := range s.labels {
				if v != "" {
					ls = append(ls, Label{names[i], v})
				}
			}
			labels[id] = ls
		}
		sort.Strings(ids)
		t.ids, t.labels = ids, labels
	}
	for _, id := range t.ids {
		s := x.series[id]
		m := Metric{Name: t.name, Kind: x.stat.Kind, Labels: t.labels[id]}
		switch x.stat.Kind {
		case analytics.Distribution:
			m.Count = uint64(s.count)
			for _, b := range classicBuckets(s.buckets) {
				m.Classic = append(m.Classic, ClassicBucket{b.GetUpperBound(), b.GetCumulativeCount()})
			}
			if threshold, zero, pos, ok := s.native(); ok {
				n := &Native{ZeroThreshold: threshold, ZeroCount: zero}
				sp, deltas := spans(pos)
				for _, p := range sp {
					n.Spans = append(n.Spans, Span{p.GetOffset(), p.GetLength()})
				}
				n.Deltas = deltas
				m.Native = n
			}
		default:
			m.Value = s.value
		}
		fn(m)
	}
	fn(Metric{Name: FoldedName, Kind: analytics.Counter, Labels: []Label{{"dataset", x.family.dataset}}, Value: float64(x.folded)})
}

// FormatLE is a classic bucket's le label, as the text exposition writes
// it.
func FormatLE(le float64) string {
	if math.IsInf(le, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(le, 'g', -1, 64)
}

// native is the series' native buckets when they are exact; once a
// bucket did not fit, never again.
func (s *series) native() (float64, uint64, map[int]int64, bool) {
	if s.notNative {
		return 0, 0, nil, false
	}
	threshold, zero, pos, ok := nativeBuckets(s.buckets)
	if !ok {
		s.notNative = true
	}
	return threshold, zero, pos, ok
}

// TotalsState is what Totals keep across a restart.
type TotalsState struct {
	Next   time.Time     `json:"next"`
	Folded int64         `json:"folded,omitempty"`
	Series []SeriesState `json:"series,omitempty"`
}

// SeriesState is one series' totals.
type SeriesState struct {
	Key       []string   `json:"key,omitempty"`
	Value     float64    `json:"value,omitempty"`
	Count     int64      `json:"count,omitempty"`
	Buckets   [][3]int64 `json:"buckets,omitempty"` // min, max, count
	NotNative bool       `json:"not_native,omitempty"`
}

// State is the totals as they stand.
func (t *Totals) State() TotalsState {
	st := TotalsState{Next: t.x.next, Folded: t.x.folded}
	ids := make([]string, 0, len(t.x.series))
	for id := range t.x.series {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		s := t.x.series[id]
		ss := SeriesState{Key: s.key, Value: s.value, Count: s.count, NotNative: s.notNative}
		for b, n := range s.buckets {
			ss.Buckets = append(ss.Buckets, [3]int64{b[0], b[1], n})
		}
		sort.Slice(ss.Buckets, func(i, j int) bool { return ss.Buckets[i][0] < ss.Buckets[j][0] })
		st.Series = append(st.Series, ss)
	}
	return st
}

// RestoreTotals are a dataset's totals as State left them.
func RestoreTotals(d analytics.Dataset, stat analytics.Statistic, st TotalsState) *Totals {
	t := NewTotals(d, stat, st.Next)
	t.x.folded = st.Folded
	for _, ss := range st.Series {
		key := ss.Key
		if key == nil {
			key = []string{}
		}
		s := &series{key: key, labels: t.x.family.labelValues(key), value: ss.Value, count: ss.Count,
			buckets: map[[2]int64]int64{}, notNative: ss.NotNative}
		for _, b := range ss.Buckets {
			// saved before 0 stopped meaning the open bucket's end
			s.buckets[[2]int64{b[0], analytics.LegacyMax(b[0], b[1])}] = b[2]
		}
		t.x.series[joinKey(key)] = s
	}
	return t
}

// AddRange adds the dataset's intervals in [Next, to) from src, each
// read from the coarsest tier that holds it whole: seconds to the first
// minute, minutes to the first hour, hours, then minutes and seconds to
// to. For counters and distributions (a gauge's level is a second's, not
// a sum). Next is to after it.
func (t *Totals) AddRange(ctx context.Context, src Source, to time.Time, maxSeries int) error {
	name := t.x.family.dataset
	at := t.Next()
	read := func(g analytics.Granularity, until time.Time) error {
		w := g.Width()
		if until.After(to) {
			until = to
		}
		n := int(until.Sub(at) / w)
		if n <= 0 || !at.Truncate(w).Equal(at) {
			return nil
		}
		secs, err := src.Data(ctx, name, at, n, g, false)
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		at = at.Add(time.Duration(n) * w)
		t.Add(secs, at, maxSeries)
		return nil
	}
	ceil := func(x time.Time, w time.Duration) time.Time {
		if c := x.Truncate(w); !c.Equal(x) {
			return c.Add(w)
		}
		return x
	}
	steps := []struct {
		g     analytics.Granularity
		until func() time.Time
	}{
		{analytics.PerSecond, func() time.Time { return ceil(at, time.Minute) }},
		{analytics.PerMinute, func() time.Time { return ceil(at, time.Hour) }},
		{analytics.PerHour, func() time.Time { return to.Truncate(time.Hour) }},
		{analytics.PerMinute, func() time.Time { return to.Truncate(time.Minute) }},
		{analytics.PerSecond, func() time.Time { return to }},
	}
	for _, st := range steps {
		if err := read(st.g, st.until()); err != nil {
			return err
		}
	}
	if t.Next().Before(to) {
		t.Add(nil, to, maxSeries)
	}
	return nil
}
