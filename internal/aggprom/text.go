// Package aggprom serves the aggregations of a running D program as
// Prometheus metrics (sonde --prometheus): their values in Prometheus's
// text exposition format (version 0.0.4), over a minimal HTTP/1.1
// responder of one resource.
//
// It is sonde's, and kept small on purpose: sonde's start-up and peak RSS
// must not pay for what only --prometheus uses. It links neither
// client_golang nor net/http (together 4.0 MiB of sonde's peak RSS on
// every start, and client_golang 0.5 ms of package initialisation), nor
// package net (0.6 MiB), nor net/netip (0.3 MiB): the socket is made with
// package syscall and polled by the Go runtime through os.File
// (serve.go), and the address is parsed in addr.go. sonded's exporter, with native histograms and
// protobuf, is internal/promexp.
//
// Each aggregation is a family named sonde_<name> (sonde_agg for @):
// count() and sum() are counters (sonde_<name>_total), min(), max() and
// avg() gauges, the quantizations classic histograms. Keys are the labels
// key0, key1.... Past MaxSeries keys of one aggregation, later keys of
// counters and histograms are summed into one "other" series (a gauge's
// cannot be summed: they are left out), and sonde_folded_keys says how
// many keys were.
package aggprom

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Kind is how an aggregation is exposed.
type Kind int

// Kinds of aggregations.
const (
	Counter   Kind = iota // count(), sum()
	Gauge                 // min(), max(), avg()
	Histogram             // quantize(), lquantize(), llquantize()
)

// Agg is one aggregation as it stands (cumulative since the program
// started, unless the program clears it).
type Agg struct {
	Name string // without the @; "" for @
	Kind Kind
	Func string // "count", "llquantize"...: the help text says it
	Rows []Row
}

// Row is one key's value.
type Row struct {
	Key     []string
	Value   float64  // counters and gauges
	Buckets []Bucket // histograms: the buckets that counted
}

// Bucket is one bucket of a quantization: the integers [Min, Max), or
// every integer from Min up when Open (the last bucket). The first
// bucket's Min is math.MinInt64.
type Bucket struct {
	Min, Max int64
	Open     bool
	Count    int64
}

// DefaultMaxSeries bounds the series of one aggregation, "other"
// included.
const DefaultMaxSeries = 200

// Exposition renders aggregations in the text format, remembering across
// scrapes which keys have a series of their own: a key that had one keeps
// it, so that no counter of a series ever goes down. Its methods may be
// called from several goroutines.
type Exposition struct {
	MaxSeries int // 0: DefaultMaxSeries

	mu     sync.Mutex
	sticky map[string]map[string]bool // by family, the keys that have a series
}

// ContentType is the text format's media type.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// foldedKeys is the family that counts the keys folded into "other".
const foldedKeys = "sonde_folded_keys"

// MetricName is an aggregation's family name: sonde_<name>, with _total
// for counters.
func MetricName(a Agg) string {
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
	if a.Kind == Counter {
		b.WriteString("_total")
	}
	return b.String()
}

// samples are the names a family takes: its own and its samples'.
func samples(name string, k Kind) []string {
	if k == Histogram {
		return []string{name, name + "_bucket", name + "_sum", name + "_count"}
	}
	return []string{name}
}

// Text renders aggs, families sorted by name. A family whose name or
// samples would have the name of another's (@agg and @, @x_total as a
// gauge and @x as a counter, @h_count and the histogram @h) is left out
// with a comment saying so.
func (e *Exposition) Text(aggs []Agg) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sticky == nil {
		e.sticky = map[string]map[string]bool{}
	}
	limit := e.MaxSeries
	if limit <= 1 {
		limit = DefaultMaxSeries
	}
	sorted := append([]Agg(nil), aggs...)
	sort.SliceStable(sorted, func(i, j int) bool { return MetricName(sorted[i]) < MetricName(sorted[j]) })
	used := map[string]string{foldedKeys: "the keys folded into other"}
	var b bytes.Buffer
	type fold struct {
		agg string
		n   int
	}
	var folds []fold
	for _, a := range sorted {
		name := MetricName(a)
		if clash := clashOf(used, name, a.Kind); clash != "" {
			b.WriteString("# sonde: @" + a.Name + " is left out: its samples would be named as those of " + clash + "\n")
			continue
		}
		for _, s := range samples(name, a.Kind) {
			used[s] = "@" + a.Name
		}
		folds = append(folds, fold{label(a.Name), e.family(&b, name, a, limit)})
	}
	b.WriteString("# HELP " + foldedKeys + " Keys of an aggregation summed into its \"other\" series, past the limit of series per aggregation.\n")
	b.WriteString("# TYPE " + foldedKeys + " gauge\n")
	sort.Slice(folds, func(i, j int) bool { return folds[i].agg < folds[j].agg })
	for _, f := range folds {
		sample(&b, foldedKeys, []string{"aggregation"}, []string{f.agg}, "", float64(f.n))
	}
	return b.Bytes()
}

// label is an aggregation's name as sonde_folded_keys labels it.
func label(name string) string {
	if name == "" {
		return "agg"
	}
	return name
}

func clashOf(used map[string]string, name string, k Kind) string {
	for _, s := range samples(name, k) {
		if u := used[s]; u != "" {
			return u
		}
	}
	return ""
}

// family writes one aggregation's family and returns how many of its
// keys were folded into "other".
func (e *Exposition) family(b *bytes.Buffer, name string, a Agg, limit int) int {
	help := "@" + a.Name + " = " + a.Func + "() of the program sonde runs"
	b.WriteString("# HELP " + name + " " + escapeHelp(help) + "\n")
	b.WriteString("# TYPE " + name + " " + [...]string{"counter", "gauge", "histogram"}[a.Kind] + "\n")
	nkeys := 0
	for _, r := range a.Rows {
		nkeys = max(nkeys, len(r.Key))
	}
	labels := make([]string, nkeys)
	for i := range labels {
		labels[i] = "key" + strconv.Itoa(i)
	}
	sticky := e.sticky[name]
	if sticky == nil {
		sticky = map[string]bool{}
		e.sticky[name] = sticky
	}
	var other *Row
	folded := 0
	for _, r := range a.Rows {
		id := strings.Join(r.Key, "\x00")
		if !sticky[id] && len(sticky) < limit-1 {
			sticky[id] = true
		}
		if sticky[id] {
			key := make([]string, nkeys)
			copy(key, r.Key)
			series(b, name, a.Kind, labels, key, r)
			continue
		}
		folded++
		if a.Kind == Gauge {
			continue
		}
		if other == nil {
			other = &Row{}
		}
		other.Value += r.Value
		other.Buckets = append(other.Buckets, r.Buckets...)
	}
	if other != nil {
		key := make([]string, nkeys)
		for i := range key {
			key[i] = "other"
		}
		series(b, name, a.Kind, labels, key, *other)
	}
	return folded
}

// series writes one key's samples.
func series(b *bytes.Buffer, name string, k Kind, labels, key []string, r Row) {
	if k != Histogram {
		sample(b, name, labels, key, "", r.Value)
		return
	}
	bounds, total := Classic(r.Buckets)
	for _, c := range bounds {
		sample(b, name+"_bucket", labels, key, strconv.FormatInt(c.Le, 10), float64(c.Count))
	}
	sample(b, name+"_bucket", labels, key, "+Inf", float64(total))
	// The sum of the values is not kept by the aggregation.
	sample(b, name+"_sum", labels, key, "", math.NaN())
	sample(b, name+"_count", labels, key, "", float64(total))
}

// sample writes one line: name{labels,le} value.
func sample(b *bytes.Buffer, name string, labels, values []string, le string, v float64) {
	b.WriteString(name)
	if len(labels) > 0 || le != "" {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l + `="` + escapeLabel(values[i]) + `"`)
		}
		if le != "" {
			if len(labels) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`le="` + le + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(formatFloat(v))
	b.WriteByte('\n')
}

// formatFloat writes a value as the text format reads it.
func formatFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// escapeLabel escapes a label value: backslash, double quote and line
// feed. (Not strings.Replacer: its code made sonde's peak RSS 0.25 MiB
// larger on every start.)
func escapeLabel(s string) string { return escape(s, true) }

// escapeHelp escapes help text: backslash and line feed.
func escapeHelp(s string) string { return escape(s, false) }

func escape(s string, quote bool) string {
	if !strings.ContainsAny(s, "\\\n\"") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '"' && quote:
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Bound is one classic bucket: the events at most Le.
type Bound struct {
	Le    int64
	Count int64 // cumulative
}

// Classic maps a quantization's buckets onto classic buckets, and returns
// them with the count of all events. A bucket [a, b) of integers is
// (a-1, b-1]: the classic bucket le = b-1 counts exactly the events below
// b. Each bucket that counted gives its upper bound b-1 and its lower
// neighbour's, a-1, so that histogram_quantile interpolates within the
// bucket the quantile falls in. The buckets partition the integers, so
// every bound is the edge of every bucket and the counts are exact.
func Classic(buckets []Bucket) ([]Bound, int64) {
	les := map[int64]bool{}
	var total int64
	for _, bk := range buckets {
		total += bk.Count
		if bk.Count == 0 {
			continue
		}
		if !bk.Open {
			les[bk.Max-1] = true
		}
		if bk.Min != math.MinInt64 {
			les[bk.Min-1] = true
		}
	}
	out := make([]Bound, 0, len(les))
	for le := range les {
		out = append(out, Bound{Le: le})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Le < out[j].Le })
	for i := range out {
		for _, bk := range buckets {
			if !bk.Open && bk.Max-1 <= out[i].Le {
				out[i].Count += bk.Count
			}
		}
	}
	return out, total
}
