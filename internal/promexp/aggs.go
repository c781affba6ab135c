package promexp

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Agg is one aggregation of a running D program as sonde --prometheus
// serves it: its values as they stand (cumulative since the program
// started, unless it clears them).
type Agg struct {
	Name string // without the @; "" for @
	// Kind says how it is exposed: a counter (count(), sum()), a gauge
	// (min(), max(), avg()) or a histogram (the quantizations).
	Kind analytics.Kind
	Func string // "count", "sum", "llquantize"...: the help text says it
	Rows []AggRow
}

// AggRow is one key's value.
type AggRow struct {
	Key     []string
	Value   float64            // counters and gauges
	Count   int64              // histograms: events
	Buckets []analytics.Bucket // histograms: [Min, Max) and counts
}

// Aggs is a prometheus.Collector of a program's aggregations, each a
// family named sonde_<name> (sonde_agg for @), with _total for counters;
// keys are the labels key0, key1.... Past MaxSeries keys of one
// aggregation, later keys of counters and histograms are summed into one
// "other" series (a gauge's, a min or max, cannot be summed: they are
// left out), and sonde_folded_keys says how many are. An aggregation
// whose buckets are not all exact in native schema 0 is a classic
// histogram from then on.
type Aggs struct {
	// Snapshot returns the aggregations now; nil when they cannot be
	// read (the program has ended).
	Snapshot  func() []Agg
	MaxSeries int

	mu     sync.Mutex
	sticky map[string]map[string]bool // by aggregation, the keys that have a series
	// classic: aggregations that have had a bucket no native bucket
	// holds.
	classic map[string]bool
}

// Describe sends nothing: the families are the program's.
func (c *Aggs) Describe(chan<- *prometheus.Desc) {}

// Collect sends every aggregation's series.
func (c *Aggs) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sticky == nil {
		c.sticky, c.classic = map[string]map[string]bool{}, map[string]bool{}
	}
	limit := c.MaxSeries
	if limit <= 1 {
		limit = DefaultMaxSeries
	}
	for _, a := range c.Snapshot() {
		c.collectAgg(ch, a, limit)
	}
}

// AggMetricName is an aggregation's family name.
func AggMetricName(a Agg) string {
	name := a.Name
	if name == "" {
		name = "agg"
	}
	var b strings.Builder
	b.WriteString("sonde_")
	for _, c := range name {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if a.Kind == analytics.Counter {
		b.WriteString("_total")
	}
	return b.String()
}

func (c *Aggs) collectAgg(ch chan<- prometheus.Metric, a Agg, limit int) {
	nkeys := 0
	for _, r := range a.Rows {
		nkeys = max(nkeys, len(r.Key))
	}
	labels := make([]string, nkeys)
	for i := range labels {
		labels[i] = "key" + strconv.Itoa(i)
	}
	desc := prometheus.NewDesc(AggMetricName(a), "@"+a.Name+" = "+a.Func+"() of the program sonde runs", labels, nil)
	sticky := c.sticky[a.Name]
	if sticky == nil {
		sticky = map[string]bool{}
		c.sticky[a.Name] = sticky
	}
	var other *series
	folded := 0
	for _, r := range a.Rows {
		id := strings.Join(r.Key, "\x00")
		if !sticky[id] && len(sticky) < limit-1 {
			sticky[id] = true
		}
		key := padKey(r.Key, nkeys)
		if !sticky[id] {
			folded++
			if a.Kind == analytics.Gauge {
				continue
			}
			if other == nil {
				other = &series{buckets: map[[2]int64]int64{}}
			}
			addRow(other, r)
			continue
		}
		s := &series{buckets: map[[2]int64]int64{}}
		addRow(s, r)
		ch <- c.metric(desc, a, s, key)
	}
	if other != nil {
		key := make([]string, nkeys)
		for i := range key {
			key[i] = analytics.Other
		}
		ch <- c.metric(desc, a, other, key)
	}
	name := a.Name
	if name == "" {
		name = "agg"
	}
	ch <- prometheus.MustNewConstMetric(foldedKeysDesc, prometheus.GaugeValue, float64(folded), name)
}

var foldedKeysDesc = prometheus.NewDesc("sonde_folded_keys",
	"Keys of an aggregation summed into its \"other\" series, past the limit of series per aggregation.",
	[]string{"aggregation"}, nil)

// padKey gives a key as many values as the family has labels.
func padKey(key []string, n int) []string {
	out := make([]string, n)
	copy(out, key)
	return out
}

func addRow(s *series, r AggRow) {
	s.value += r.Value
	s.count += r.Count
	for _, b := range r.Buckets {
		s.buckets[[2]int64{b.Min, b.Max}] += b.Count
	}
}

func (c *Aggs) metric(desc *prometheus.Desc, a Agg, s *series, key []string) prometheus.Metric {
	var m prometheus.Metric
	var err error
	switch a.Kind {
	case analytics.Distribution:
		s.notNative = c.classic[a.Name]
		m := newHistogram(desc, s, key)
		c.classic[a.Name] = s.notNative
		return m
	case analytics.Counter:
		m, err = prometheus.NewConstMetric(desc, prometheus.CounterValue, s.value, key...)
	default:
		m, err = prometheus.NewConstMetric(desc, prometheus.GaugeValue, s.value, key...)
	}
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

// AggServer serves an Aggs collector on /metrics (sonde --prometheus).
type AggServer struct {
	srv *http.Server
	// Addr is the address listened on (a port chosen for ":0").
	Addr net.Addr
}

// ServeAggs listens on addr and serves c on /metrics until Close.
func ServeAggs(addr string, c *Aggs) (*AggServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	s := &AggServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, Addr: ln.Addr()}
	// Serve ends with ErrServerClosed at Close; should the listener fail
	// before, scrapes fail and tracing goes on.
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops serving.
func (s *AggServer) Close() error { return s.srv.Close() }
