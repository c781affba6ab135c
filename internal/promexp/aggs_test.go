package promexp

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// A program's aggregations: counters keyed key0..., @ as sonde_agg;
// past the limit, counters' keys are summed into "other" and gauges'
// left out, and both are counted.
func TestAggs(t *testing.T) {
	rows := func(vals ...float64) []AggRow {
		var out []AggRow
		for i, v := range vals {
			out = append(out, AggRow{Key: []string{string(rune('a' + i)), "x"}, Value: v})
		}
		return out
	}
	c := &Aggs{MaxSeries: 3, Snapshot: func() []Agg {
		return []Agg{
			{Name: "w", Kind: analytics.Counter, Func: "count", Rows: rows(1, 2, 4, 8)},
			{Name: "m", Kind: analytics.Gauge, Func: "max", Rows: rows(1, 2, 4, 8)},
			{Kind: analytics.Counter, Func: "count", Rows: []AggRow{{Value: 5}}},
		}
	}}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue()
			got[mf.GetName()+"{"+labels(m)+"}"] = v
		}
	}
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
	if len(got) != len(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (%v), want %v", k, g, ok, v)
		}
	}
}
