package promexp

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// source is a Source of fixed seconds.
type source struct {
	stats   []analytics.Statistic
	sets    []analytics.Dataset
	secs    map[string][]analytics.Second
	sampled time.Time
}

func (s *source) Statistics() []analytics.Statistic { return s.stats }
func (s *source) Datasets() []analytics.Dataset     { return s.sets }
func (s *source) Sampled() time.Time                { return s.sampled }
func (s *source) Data(_ context.Context, name string, start time.Time, n int, _ analytics.Granularity, _ bool) ([]analytics.Second, error) {
	var out []analytics.Second
	end := start.Add(time.Duration(n) * time.Second)
	for _, sec := range s.secs[name] {
		if !sec.Time.Before(start) && sec.Time.Before(end) {
			out = append(out, sec)
		}
	}
	return out, nil
}

var t0 = time.Unix(1_700_000_000, 0)

func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }

func ops() analytics.Statistic {
	return analytics.Statistic{Name: "syscall.ops", Kind: analytics.Counter, Breakdowns: []analytics.Breakdown{{Name: "execname"}, {Name: "name"}}}
}

func gather(t *testing.T, e *Exporter) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// labels renders a metric's labels as a=b,c=d.
func labels(m *dto.Metric) string {
	var s []string
	for _, l := range m.Label {
		s = append(s, l.GetName()+"="+l.GetValue())
	}
	return strings.Join(s, ",")
}

// Counters add every second once, from the first scrape's origin, and
// are stamped with the end of the last second added; filters are labels.
func TestCountersExactAndStamped(t *testing.T) {
	name := "syscall.ops[execname=dd][name]"
	src := &source{stats: []analytics.Statistic{ops()},
		sets:    []analytics.Dataset{{Name: name, Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: "dd"}}, Breakdowns: []string{"name"}, Export: true}},
		sampled: at(2),
		secs: map[string][]analytics.Second{name: {
			{Time: at(1), Rows: []analytics.Row{{Key: []string{"write"}, Value: 1000}}}, // before the origin
			{Time: at(2), Rows: []analytics.Row{{Key: []string{"write"}, Value: 2000}}}, // the current second at the first scrape
			{Time: at(3), Rows: []analytics.Row{{Key: []string{"write"}, Value: 5}, {Key: []string{"read"}, Value: 7}}},
			{Time: at(4), Rows: []analytics.Row{{Key: []string{"write"}, Value: 11}}},
			{Time: at(5), Rows: []analytics.Row{{Key: []string{"write"}, Value: 13}}},
		}}}
	e := New(src, nil)
	mfs := gather(t, e)
	if mf := mfs["sonde_syscall_ops_total"]; mf != nil {
		t.Fatalf("the first scrape is the origin: no second added yet, got %v", mf)
	}
	if got := mfs["sonde_export_folded_rows_total"].Metric[0].GetTimestampMs(); got != at(3).UnixMilli() {
		t.Errorf("origin stamped %d, want %d (the second after the current one)", got, at(3).UnixMilli())
	}
	src.sampled = at(5) // seconds 3 and 4 sampled
	mf := gather(t, e)["sonde_syscall_ops_total"]
	want := map[string]float64{"dataset=" + name + ",execname=dd,name=read": 7, "dataset=" + name + ",execname=dd,name=write": 16}
	check := func(mf *dto.MetricFamily, stamp time.Time) {
		t.Helper()
		if len(mf.Metric) != len(want) {
			t.Fatalf("series %v, want %v", mf.Metric, want)
		}
		for _, m := range mf.Metric {
			if w, ok := want[labels(m)]; !ok || m.Counter.GetValue() != w || m.GetTimestampMs() != stamp.UnixMilli() {
				t.Errorf("%s = %v at %d, want %v at %d", labels(m), m.Counter.GetValue(), m.GetTimestampMs(), w, stamp.UnixMilli())
			}
		}
	}
	check(mf, at(5))
	check(gather(t, e)["sonde_syscall_ops_total"], at(5)) // a scrape in the same second adds nothing
	src.sampled = at(6)
	want["dataset="+name+",execname=dd,name=write"] = 29
	check(gather(t, e)["sonde_syscall_ops_total"], at(6))
	src.sets[0].Export = false
	if mf := gather(t, e)["sonde_syscall_ops_total"]; mf != nil {
		t.Errorf("unexported, still served: %v", mf)
	}
}

// A scrape before the agent's first second is sampled (Sampled is zero:
// Prometheus scraping a sonded that has just started) makes no origin.
// It made one in year 1, and each scrape then read MaxSeconds from there:
// the dataset's metrics stayed empty, stamped in year 1, for good.
func TestScrapeBeforeFirstSecond(t *testing.T) {
	name := "syscall.ops"
	src := &source{stats: []analytics.Statistic{ops()},
		sets: []analytics.Dataset{{Name: name, Statistic: "syscall.ops", Export: true}},
		secs: map[string][]analytics.Second{name: {
			{Time: at(1), Rows: []analytics.Row{{Value: 1000}}},
			{Time: at(2), Rows: []analytics.Row{{Value: 5}}},
			{Time: at(3), Rows: []analytics.Row{{Value: 7}}},
		}}}
	e := New(src, nil)
	if mf := gather(t, e)["sonde_export_folded_rows_total"]; mf != nil {
		t.Errorf("nothing sampled yet, but served %v", mf)
	}
	src.sampled = at(1) // the origin: second 1 is the current one
	gather(t, e)
	src.sampled = at(4) // seconds 2 and 3 sampled
	mf := gather(t, e)["sonde_syscall_ops_total"]
	if mf == nil || len(mf.Metric) != 1 || mf.Metric[0].Counter.GetValue() != 12 || mf.Metric[0].GetTimestampMs() != at(4).UnixMilli() {
		t.Fatalf("syscall.ops %v, want 12 at %d", mf, at(4).UnixMilli())
	}
}

// Past MaxSeries, new keys are summed into "other" and counted; a key
// that has a series keeps it.
func TestFoldedIntoOther(t *testing.T) {
	name := "syscall.ops[execname]"
	src := &source{stats: []analytics.Statistic{ops()},
		sets:    []analytics.Dataset{{Name: name, Statistic: "syscall.ops", Breakdowns: []string{"execname"}, Export: true}},
		sampled: at(0),
		secs: map[string][]analytics.Second{name: {
			{Time: at(1), Rows: []analytics.Row{{Key: []string{"a"}, Value: 1}, {Key: []string{"b"}, Value: 2}}},
			{Time: at(2), Rows: []analytics.Row{{Key: []string{"a"}, Value: 4}, {Key: []string{"c"}, Value: 8}, {Key: []string{"d"}, Value: 16}}},
		}}}
	e := New(src, &Options{MaxSeries: 3})
	gather(t, e)
	src.sampled = at(3)
	mfs := gather(t, e)
	got := map[string]float64{}
	for _, m := range mfs["sonde_syscall_ops_total"].Metric {
		got[labels(m)] = m.Counter.GetValue()
	}
	want := map[string]float64{
		"dataset=" + name + ",execname=a,name=":     5,
		"dataset=" + name + ",execname=b,name=":     2,
		"dataset=" + name + ",execname=other,name=": 24,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if f := mfs["sonde_export_folded_rows_total"].Metric[0].Counter.GetValue(); f != 2 {
		t.Errorf("folded %v rows, want 2 (c and d)", f)
	}
}

// A distribution's bucket [a, b) is the classic bucket le = b-1, and its
// lower neighbour a-1 is a bound too; buckets that fall within native
// schema-0 buckets are native too.
func TestHistogramBuckets(t *testing.T) {
	lat := analytics.Statistic{Name: "io.latency", Kind: analytics.Distribution, Unit: "nanoseconds"}
	row := func(bs ...analytics.Bucket) analytics.Row {
		r := analytics.Row{Buckets: bs}
		for _, b := range bs {
			r.Value += b.Count
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		buckets []analytics.Bucket
		classic string  // le:cumulative ...
		native  []int64 // absolute counts of native buckets from index 0 (nil: none)
		zero    uint64
		// zeroThreshold is 1 where [0, 2) is the zero bucket
		zeroThreshold int
	}{
		{"decimal", []analytics.Bucket{{Min: 1000, Max: 1500, Count: 3}, {Min: 2000, Max: 2500, Count: 4}},
			"999:0 1499:3 1999:3 2499:7", nil, 0, 0},
		{"powers of two, shifted", []analytics.Bucket{{Min: 0, Max: 1, Count: 2}, {Min: 1, Max: 2, Count: 1}, {Min: 3, Max: 5, Count: 5}, {Min: 5, Max: 9, Count: 6}},
			"0:2 1:3 2:3 4:8 8:14", []int64{1, 0, 5, 6}, 2, 0},
		{"the export scale", []analytics.Bucket{{Min: 0, Max: 2, Count: 2}, {Min: 2, Max: 3, Count: 1}, {Min: 3, Max: 4, Count: 5}, {Min: 4, Max: 5, Count: 6}, {Min: 129, Max: 137, Count: 1}},
			"1:2 2:3 3:8 4:14 128:14 136:15", []int64{0, 1, 11, 0, 0, 0, 0, 0, 1}, 2, 1},
		{"open last bucket", []analytics.Bucket{{Min: 10, Max: 20, Count: 1}, {Min: 100, Max: analytics.Unbounded, Count: 2}},
			"9:0 19:1 99:1", nil, 0, 0},
		// lquantize(x, -4, 4)'s [-1, 0) and an underflow ending at 0 are
		// buckets like any other (they were taken for the open one).
		{"buckets ending at zero", []analytics.Bucket{{Min: math.MinInt64, Max: -4, Count: 1}, {Min: -1, Max: 0, Count: 3}, {Min: 2, Max: 3, Count: 2}},
			"-5:1 -2:1 -1:4 1:4 2:6", nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "io.latency"
			src := &source{stats: []analytics.Statistic{lat}, sets: []analytics.Dataset{{Name: name, Statistic: name, Export: true}},
				sampled: at(0), secs: map[string][]analytics.Second{name: {{Time: at(1), Rows: []analytics.Row{row(tc.buckets...)}}}}}
			e := New(src, nil)
			gather(t, e)
			src.sampled = at(2)
			h := gather(t, e)["sonde_io_latency_nanoseconds"].Metric[0].Histogram
			var classic []string
			for _, b := range h.Bucket {
				classic = append(classic, strconv.FormatFloat(b.GetUpperBound(), 'f', -1, 64)+":"+strconv.FormatUint(b.GetCumulativeCount(), 10))
			}
			if got := strings.Join(classic, " "); got != tc.classic {
				t.Errorf("classic buckets %s, want %s", got, tc.classic)
			}
			if !math.IsNaN(h.GetSampleSum()) {
				t.Errorf("sum %v: the distributions keep none, it must be NaN", h.GetSampleSum())
			}
			var total int64
			for _, b := range tc.buckets {
				total += b.Count
			}
			if h.GetSampleCount() != uint64(total) {
				t.Errorf("count %d, want %d", h.GetSampleCount(), total)
			}
			if tc.native == nil {
				if h.Schema != nil {
					t.Errorf("native buckets sent for buckets no native bucket holds: %v", h)
				}
				return
			}
			if h.GetSchema() != 0 || h.GetZeroCount() != tc.zero || h.GetZeroThreshold() != float64(tc.zeroThreshold) {
				t.Fatalf("schema %d zero %d, want 0 and %d", h.GetSchema(), h.GetZeroCount(), tc.zero)
			}
			if got := expand(h); !equal(got, tc.native) {
				t.Errorf("native buckets %v, want %v", got, tc.native)
			}
		})
	}
}

// expand decodes a native histogram's positive buckets into absolute
// counts by index from 0.
func expand(h *dto.Histogram) []int64 {
	var out []int64
	idx, count := int32(0), int64(0)
	d := 0
	for i, sp := range h.PositiveSpan {
		if i == 0 {
			idx = sp.GetOffset()
		} else {
			idx += sp.GetOffset()
		}
		for j := uint32(0); j < sp.GetLength(); j++ {
			count += h.PositiveDelta[d]
			d++
			for int32(len(out)) < idx {
				out = append(out, 0)
			}
			out = append(out, count)
			idx++
		}
	}
	return out
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
