// Package promexp exposes sonded's exported datasets as Prometheus
// metrics: a prometheus.Collector over the agent (any Source), served on
// /metrics by client_golang's registry and handler, in the text format or,
// when the scraper asks for it, in protobuf.
//
// Each exported dataset is a family named after its statistic:
// counters ("syscall.ops" is sonde_syscall_ops_total), gauges
// (cpu.utilization, hundredths of a percent, is sonde_cpu_utilization_ratio
// in CPUs) and distributions (sonde_io_latency_nanoseconds, a histogram).
// A family's labels are "dataset" (the dataset's name, which tells the
// total from its breakdowns) and every breakdown of the statistic: the
// dataset's key for its breakdowns, a filter's value for its filters,
// empty (absent) for the others.
//
// Values are exact. The agent keeps per-second deltas; the exporter adds
// every second once, from the second after its first scrape, and stamps each sample
// with the end of the last second it holds (the agent's Sampled), so a
// counter's increase between two samples in Prometheus is exactly the sum
// of the dataset's seconds between their timestamps. docs/prometheus.md
// describes the histograms' bucket mapping.
//
// Cardinality is bounded per dataset: the first MaxSeries-1 keys seen get
// a series each, for as long as the exporter runs (so that no counter
// ever goes down); later keys are summed into one series whose labels
// are "other", and sonde_export_folded_rows_total counts the rows so
// folded.
package promexp

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Source is what the exporter reads: the agent.
type Source interface {
	Statistics() []analytics.Statistic
	Datasets() []analytics.Dataset
	Data(ctx context.Context, name string, start time.Time, n int, g analytics.Granularity, wait bool) ([]analytics.Second, error)
	// Sampled is the end of the last second sampled.
	Sampled() time.Time
}

// DefaultMaxSeries bounds the series of one dataset.
const DefaultMaxSeries = 200

// Options configure an Exporter; zero values take the defaults.
type Options struct {
	// MaxSeries is the series one dataset may have, "other" included.
	MaxSeries int
	// MaxSeconds bounds the seconds one scrape reads per dataset
	// (default a day): a dataset further behind catches up over the
	// next scrapes.
	MaxSeconds int
}

// Exporter is a prometheus.Collector of the exported datasets.
type Exporter struct {
	src  Source
	opts Options

	mu   sync.Mutex
	sets map[string]*exported
}

// New returns an exporter over src.
func New(src Source, opts *Options) *Exporter {
	e := &Exporter{src: src, sets: map[string]*exported{}}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.MaxSeries <= 1 {
		e.opts.MaxSeries = DefaultMaxSeries
	}
	if e.opts.MaxSeconds <= 0 {
		e.opts.MaxSeconds = 24 * 3600
	}
	return e
}

// Describe sends nothing: the families depend on which datasets are
// exported, so the collector is unchecked.
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect adds the seconds sampled since the last scrape to every
// exported dataset's totals and sends its metrics.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	end := e.src.Sampled()
	if end.IsZero() {
		// The agent has not sampled its first second: no origin yet (one
		// made of the zero time would start in year 1).
		return
	}
	stats := map[string]analytics.Statistic{}
	for _, s := range e.src.Statistics() {
		stats[s.Name] = s
	}
	live := map[string]bool{}
	for _, d := range e.src.Datasets() {
		st, ok := stats[d.Statistic]
		if !d.Export || !ok {
			continue
		}
		live[d.Name] = true
		x := e.sets[d.Name]
		if x == nil || x.stat.Kind != st.Kind {
			x = newExported(d, st, end)
			e.sets[d.Name] = x
		}
		x.catchUp(e.src, end, e.opts)
		x.collect(ch, d, e.opts.MaxSeries)
	}
	for name := range e.sets {
		if !live[name] {
			delete(e.sets, name)
		}
	}
}

// exported is one dataset's totals since the exporter first saw it
// exported.
type exported struct {
	stat   analytics.Statistic
	family family
	// next is the first second not yet added: samples are stamped with
	// it.
	next   time.Time
	series map[string]*series // by key
	folded int64
	err    error
}

// series is one key's totals.
type series struct {
	key    []string // the dataset's key
	labels []string // the family's label values but "dataset"
	value  float64  // counter: the total; gauge: the last level
	count  int64    // distribution: events
	// buckets of a distribution by [Min, Max): counts since the start.
	buckets map[[2]int64]int64
	// notNative: a bucket was seen that no native bucket holds exactly;
	// the series is a classic histogram from then on.
	notNative bool
}

// newExported starts a dataset's totals at the second after the current
// one: a distribution marked for export in the current second changed
// its scale in it (stats.ExportScale), and its buckets of the two scales
// overlap.
func newExported(d analytics.Dataset, st analytics.Statistic, sampled time.Time) *exported {
	x := &exported{stat: st, next: sampled.Truncate(time.Second).Add(time.Second), series: map[string]*series{}}
	x.bind(d)
	return x
}

// catchUp adds the seconds from x.next to end.
func (x *exported) catchUp(src Source, end time.Time, opts Options) {
	x.err = nil
	for x.next.Before(end) {
		n := min(int(end.Sub(x.next)/time.Second), opts.MaxSeconds)
		if n <= 0 {
			return
		}
		secs, err := src.Data(context.Background(), datasetName(x), x.next, n, analytics.PerSecond, false)
		if err != nil {
			x.err = err
			return
		}
		x.add(secs, opts.MaxSeries)
		x.next = x.next.Add(time.Duration(n) * time.Second)
		if n == opts.MaxSeconds {
			return // the rest at the next scrape
		}
	}
}

// datasetName is the name x was created for (kept in its family's
// constant label).
func datasetName(x *exported) string { return x.family.dataset }

// add adds seconds, in time order.
func (x *exported) add(secs []analytics.Second, maxSeries int) {
	for _, s := range secs {
		if x.stat.Kind == analytics.Gauge {
			for _, ser := range x.series {
				ser.value = 0 // a key absent in a second is at zero
			}
		}
		for _, r := range s.Rows {
			ser := x.seriesOf(r.Key, maxSeries)
			switch x.stat.Kind {
			case analytics.Gauge:
				ser.value += float64(r.Value) * x.family.scale
			case analytics.Distribution:
				ser.count += r.Value
				for _, b := range r.Buckets {
					ser.buckets[[2]int64{b.Min, int64(b.Max)}] += b.Count
				}
			default:
				ser.value += float64(r.Value) * x.family.scale
			}
		}
	}
}

// seriesOf finds or makes the series of key; past maxSeries-1 keys, the
// "other" series.
func (x *exported) seriesOf(key []string, maxSeries int) *series {
	id := joinKey(key)
	if s := x.series[id]; s != nil {
		return s
	}
	other := make([]string, len(key))
	for i := range other {
		other[i] = analytics.Other
	}
	if id != joinKey(other) && len(x.series) >= maxSeries-1 {
		x.folded++
		key, id = other, joinKey(other)
		if s := x.series[id]; s != nil {
			return s
		}
	}
	s := &series{key: key, labels: x.family.labelValues(key), buckets: map[[2]int64]int64{}}
	x.series[id] = s
	return s
}

// joinKey is a key's index in a dataset's series.
func joinKey(key []string) string { return strings.Join(key, "\x00") }

// collect sends x's metrics, stamped with x.next.
func (x *exported) collect(ch chan<- prometheus.Metric, d analytics.Dataset, maxSeries int) {
	ids := make([]string, 0, len(x.series))
	for id := range x.series {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		s := x.series[id]
		var m prometheus.Metric
		var err error
		values := append([]string{d.Name}, s.labels...)
		switch x.stat.Kind {
		case analytics.Distribution:
			m = newHistogram(x.family.desc, s, values)
		case analytics.Gauge:
			m, err = prometheus.NewConstMetric(x.family.desc, prometheus.GaugeValue, s.value, values...)
		default:
			m, err = prometheus.NewConstMetric(x.family.desc, prometheus.CounterValue, s.value, values...)
		}
		if err != nil {
			ch <- prometheus.NewInvalidMetric(x.family.desc, err)
			continue
		}
		ch <- prometheus.NewMetricWithTimestamp(x.next, m)
	}
	ch <- prometheus.NewMetricWithTimestamp(x.next, prometheus.MustNewConstMetric(foldedDesc, prometheus.CounterValue, float64(x.folded), d.Name))
	ch <- prometheus.MustNewConstMetric(droppedDesc, prometheus.CounterValue, float64(d.Dropped), d.Name)
	if x.err != nil {
		ch <- prometheus.NewInvalidMetric(x.family.desc, fmt.Errorf("reading %s: %w", d.Name, x.err))
	}
}

var (
	foldedDesc = prometheus.NewDesc("sonde_export_folded_rows_total",
		"Rows (a key in a second) of an exported dataset summed into its \"other\" series, past the exporter's limit of series per dataset.",
		[]string{"dataset"}, nil)
	droppedDesc = prometheus.NewDesc("sonde_dataset_dropped_total",
		"Events a dataset did not count because its aggregation was full.",
		[]string{"dataset"}, nil)
)

// family is a statistic's metric family: name, help and labels.
type family struct {
	dataset string
	desc    *prometheus.Desc
	// breakdowns are the statistic's breakdowns, in label order; the
	// dataset's keys and filters map onto them.
	breakdowns []string
	keyPos     []int          // the dataset's breakdown i is label keyPos[i]
	filters    map[int]string // label index to a filter's value
	scale      float64        // multiplies a counter's or gauge's values
}

func (f family) labelValues(key []string) []string {
	v := make([]string, len(f.breakdowns))
	for i, val := range f.filters {
		v[i] = val
	}
	for i, k := range key {
		if i < len(f.keyPos) {
			v[f.keyPos[i]] = k
		}
	}
	return v
}

func breakdownNames(st analytics.Statistic) []string {
	var out []string
	for _, b := range st.Breakdowns {
		out = append(out, b.Name)
	}
	return out
}

// MetricName is the family name of a statistic: sonde_ and the
// statistic's name with '.' and other bytes a metric name cannot have as
// '_', then the unit's suffix: _total for counters, _ratio for a
// utilization in hundredths of a percent, _nanoseconds for distributions
// in nanoseconds. The scale turns the dataset's values into the metric's.
func MetricName(st analytics.Statistic) (string, float64) {
	var b strings.Builder
	b.WriteString("sonde_")
	for _, c := range st.Name {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	name, scale := b.String(), 1.0
	switch {
	case st.Kind == analytics.Counter:
		name += "_total"
	case st.Kind == analytics.Gauge && st.Unit == "hundredths of a percent":
		name, scale = name+"_ratio", 1.0/10000
	case st.Kind == analytics.Distribution && st.Unit == "nanoseconds":
		name += "_nanoseconds"
	}
	return name, scale
}

// labelName is the label of a breakdown: its name, unless it is
// "dataset", which the family's own label has.
func labelName(b string) string {
	if b == "dataset" {
		return "dataset_key"
	}
	return b
}

// bind makes x's family for dataset d: its Desc and where the dataset's
// keys and filters go.
func (x *exported) bind(d analytics.Dataset) {
	f := family{dataset: d.Name, breakdowns: breakdownNames(x.stat)}
	name, scale := MetricName(x.stat)
	f.scale = scale
	labels := []string{"dataset"}
	pos := map[string]int{}
	for i, b := range f.breakdowns {
		labels = append(labels, labelName(b))
		pos[b] = i
	}
	f.filters = map[int]string{}
	for _, flt := range d.Filters {
		if i, ok := pos[flt.Breakdown]; ok {
			f.filters[i] = flt.Value
		}
	}
	for _, b := range d.Breakdowns {
		f.keyPos = append(f.keyPos, pos[b])
	}
	help := x.stat.Description
	if x.stat.Unit != "" {
		help += " (" + x.stat.Unit + ")"
	}
	f.desc = prometheus.NewDesc(name, help, labels, nil)
	x.family = f
}

// Handler serves the exporter's metrics, and those of the other
// collectors given (sonded's remote-write), from a registry of its own:
// text, or protobuf when the scraper asks for it (native histograms
// travel only in protobuf).
func Handler(e *Exporter, others ...prometheus.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	reg.MustRegister(others...)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
