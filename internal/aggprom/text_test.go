package aggprom

import (
	"bytes"
	"math"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads the text format as Prometheus's own parser does, and fails
// the test on any error.
func parse(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("the text format's parser: %v\n%s", err, text)
	}
	return mfs
}

func labels(m *dto.Metric) string {
	var ls []string
	for _, l := range m.Label {
		ls = append(ls, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(ls)
	return strings.Join(ls, ",")
}

// values are every counter's and gauge's sample, by family{labels}.
func values(mfs map[string]*dto.MetricFamily) map[string]float64 {
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			got[mf.GetName()+"{"+labels(m)+"}"] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return got
}

// A program's aggregations: counters keyed key0..., @ as sonde_agg;
// past the limit, counters' keys are summed into "other" and gauges'
// left out, and both are counted; keys that had a series keep it.
func TestCountersAndGauges(t *testing.T) {
	rows := func(vals ...float64) []Row {
		var out []Row
		for i, v := range vals {
			out = append(out, Row{Key: []string{string(rune('a' + i)), "x"}, Value: v})
		}
		return out
	}
	e := &Exposition{MaxSeries: 3}
	aggs := []Agg{
		{Name: "w", Kind: Counter, Func: "count", Rows: rows(1, 2, 4, 8)},
		{Name: "m", Kind: Gauge, Func: "max", Rows: rows(1, 2, 4, 8)},
		{Kind: Counter, Func: "count", Rows: []Row{{Value: 5}}},
	}
	mfs := parse(t, e.Text(aggs))
	want := map[string]float64{
		"sonde_w_total{key0=a,key1=x}":         1,
		"sonde_w_total{key0=b,key1=x}":         2,
		"sonde_w_total{key0=other,key1=other}": 12,
		"sonde_m{key0=a,key1=x}":               1,
		"sonde_m{key0=b,key1=x}":               2,
		"sonde_agg_total{}":                    5,
		"sonde_folded_keys{aggregation=w}":     2,
		"sonde_folded_keys{aggregation=m}":     2,
		"sonde_folded_keys{aggregation=agg}":   0,
	}
	check(t, values(mfs), want)
	for name, typ := range map[string]dto.MetricType{"sonde_w_total": dto.MetricType_COUNTER, "sonde_m": dto.MetricType_GAUGE,
		"sonde_agg_total": dto.MetricType_COUNTER, "sonde_folded_keys": dto.MetricType_GAUGE} {
		if mfs[name].GetType() != typ {
			t.Errorf("%s is a %v, want %v", name, mfs[name].GetType(), typ)
		}
	}
	if h := mfs["sonde_w_total"].GetHelp(); h != "@w = count() of the program sonde runs" {
		t.Errorf("help %q", h)
	}

	// Later, d comes first: c and d are still folded, a and b keep
	// their series.
	aggs[0].Rows = []Row{{Key: []string{"d", "x"}, Value: 9}, {Key: []string{"b", "x"}, Value: 3}, {Key: []string{"a", "x"}, Value: 1}}
	got := values(parse(t, e.Text(aggs[:1])))
	check(t, got, map[string]float64{
		"sonde_w_total{key0=a,key1=x}":         1,
		"sonde_w_total{key0=b,key1=x}":         3,
		"sonde_w_total{key0=other,key1=other}": 9,
		"sonde_folded_keys{aggregation=w}":     1,
	})
}

func check(t *testing.T, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (%v), want %v", k, g, ok, v)
		}
	}
}

// Histograms: le = b-1 for [a, b) and a-1 below it, cumulative, exact;
// the open last bucket only in +Inf; a bucket that ends at 0 ([-1, 0),
// quantize()'s -1) is not open. (The exporter before this package took a
// Max of 0 for "open" and left quantize()'s -1 out of every bucket but
// +Inf.)
func TestHistogram(t *testing.T) {
	e := &Exposition{}
	rows := []Row{{Key: []string{"dd"}, Buckets: []Bucket{
		{Min: math.MinInt64, Max: -1, Count: 1}, // v < -1
		{Min: -1, Max: 0, Count: 2},             // -1
		{Min: 0, Max: 1, Count: 3},              // 0
		{Min: 4, Max: 8, Count: 5},              // 4..7
		{Min: 8, Open: true, Count: 7},          // 8 and up
	}}}
	mfs := parse(t, e.Text([]Agg{{Name: "q", Kind: Histogram, Func: "quantize", Rows: rows}}))
	mf := mfs["sonde_q"]
	if mf.GetType() != dto.MetricType_HISTOGRAM || len(mf.Metric) != 1 {
		t.Fatalf("sonde_q: %v", mf)
	}
	h := mf.Metric[0].GetHistogram()
	var got []string
	for _, b := range h.Bucket {
		got = append(got, formatFloat(b.GetUpperBound())+":"+formatFloat(float64(b.GetCumulativeCount())))
	}
	// -2 is -1's lower neighbour, -1 its own bound and 0's lower
	// neighbour, 3 is [4, 8)'s lower neighbour, 7 [8, ...)'s.
	want := "-2:1 -1:3 0:6 3:6 7:11 +Inf:18"
	if strings.Join(got, " ") != want {
		t.Errorf("buckets %s, want %s", strings.Join(got, " "), want)
	}
	if h.GetSampleCount() != 18 || !math.IsNaN(h.GetSampleSum()) {
		t.Errorf("count %d sum %v, want 18 NaN", h.GetSampleCount(), h.GetSampleSum())
	}
	if labels(mf.Metric[0]) != "key0=dd" {
		t.Errorf("labels %s", labels(mf.Metric[0]))
	}
}

// Histograms past the limit are summed bucket by bucket into "other".
func TestHistogramOther(t *testing.T) {
	e := &Exposition{MaxSeries: 2}
	row := func(k string, n int64) Row {
		return Row{Key: []string{k}, Buckets: []Bucket{{Min: 0, Max: 1, Count: n}, {Min: 1, Max: 2, Count: 1}}}
	}
	text := e.Text([]Agg{{Name: "h", Kind: Histogram, Func: "lquantize", Rows: []Row{row("a", 1), row("b", 2), row("c", 3)}}})
	if !bytes.Contains(text, []byte(`sonde_h_bucket{key0="other",le="0"} 5`+"\n")) ||
		!bytes.Contains(text, []byte(`sonde_h_bucket{key0="other",le="1"} 7`+"\n")) ||
		!bytes.Contains(text, []byte(`sonde_h_count{key0="other"} 7`+"\n")) {
		t.Errorf("other:\n%s", text)
	}
	check(t, values(parse(t, text)), map[string]float64{
		"sonde_h{key0=a}": 0, "sonde_h{key0=other}": 0, "sonde_folded_keys{aggregation=h}": 2})
}

// Keys are any text: quotes, backslashes and newlines are escaped; an
// empty key is a label of empty value (absent, to Prometheus).
func TestEscaping(t *testing.T) {
	e := &Exposition{}
	key := "a \"b\" \\c\nd"
	mfs := parse(t, e.Text([]Agg{{Name: "k", Kind: Gauge, Func: "min", Rows: []Row{{Key: []string{key, ""}, Value: -1.5}}}}))
	m := mfs["sonde_k"].Metric[0]
	if m.Label[0].GetValue() != key || m.GetGauge().GetValue() != -1.5 {
		t.Errorf("got %v", m)
	}
}

// Families whose samples would share a name: the first by name is kept,
// the other left out with a comment, and nothing is written twice.
func TestClash(t *testing.T) {
	e := &Exposition{}
	text := e.Text([]Agg{
		{Name: "agg", Kind: Counter, Func: "count", Rows: []Row{{Value: 1}}},
		{Name: "", Kind: Counter, Func: "count", Rows: []Row{{Value: 2}}},
		{Name: "h_bucket", Kind: Gauge, Func: "max", Rows: []Row{{Value: 3}}},
		{Name: "h", Kind: Histogram, Func: "quantize", Rows: []Row{{Buckets: []Bucket{{Min: 0, Max: 1, Count: 1}}}}},
		{Name: "folded_keys", Kind: Gauge, Func: "max", Rows: []Row{{Value: 4}}},
		{Name: "x", Kind: Counter, Func: "count", Rows: []Row{{Value: 5}}},
		{Name: "x_total", Kind: Histogram, Func: "quantize", Rows: []Row{{Buckets: []Bucket{{Min: 0, Max: 1, Count: 1}}}}},
	})
	mfs := parse(t, text)
	if n := strings.Count(string(text), "# sonde: "); n != 4 {
		t.Errorf("%d families left out, want 4:\n%s", n, text)
	}
	if len(mfs["sonde_agg_total"].Metric) != 1 || mfs["sonde_h"] == nil || mfs["sonde_h_bucket"] != nil {
		t.Errorf("kept:\n%s", text)
	}
	if len(mfs["sonde_folded_keys"].Metric) != 3 {
		t.Errorf("folded keys of the families kept only:\n%s", text)
	}
}

// Values as the format writes them.
func TestFormatFloat(t *testing.T) {
	for v, want := range map[float64]string{12345: "12345", 1e21: "1e+21", -0.25: "-0.25", math.Inf(1): "+Inf", math.Inf(-1): "-Inf"} {
		if got := formatFloat(v); got != want {
			t.Errorf("%v: %s, want %s", v, got, want)
		}
	}
}
