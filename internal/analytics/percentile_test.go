package analytics

import "testing"

// The percentile bucket is the first whose cumulative count reaches
// q times the total, as histogram_quantile finds it.
func TestPercentile(t *testing.T) {
	bs := []Bucket{{Min: 100, Max: 200, Count: 90}, {Min: 0, Max: 100, Count: 0}, {Min: 200, Max: 0, Count: 10}}
	for _, tc := range []struct {
		q   float64
		min int64
	}{{0.5, 100}, {0.9, 100}, {0.91, 200}, {1, 200}} {
		b, ok := Percentile(bs, tc.q)
		if !ok || b.Min != tc.min {
			t.Errorf("p%v: %v %v, want the bucket from %d", tc.q, b, ok, tc.min)
		}
	}
	if _, ok := Percentile(nil, 0.5); ok {
		t.Error("no events: no percentile")
	}
	if _, ok := Percentile(bs, 0); ok {
		t.Error("q 0: no percentile")
	}
}
