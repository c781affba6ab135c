package api

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// A dataset whose rows do not add up (a gauge by CPU) gives its total as a
// row without a key; otherwise the total is the sum of the rows.
func TestIntervalTotal(t *testing.T) {
	byCPU := analytics.Second{Samples: 1, Rows: []analytics.Row{{Value: 4500}, {Key: []string{"0"}, Value: 8000}, {Key: []string{"1"}, Value: 1000}}}
	iv := showInterval(byCPU, analytics.PerSecond, 1)
	if iv.Data.Value != 4500 || iv.Data.Data == nil || len(*iv.Data.Data) != 2 {
		t.Errorf("by cpu: value %d, keys %v; want 4500 and the two CPUs", iv.Data.Value, iv.Data.Data)
	}
	byMode := analytics.Second{Samples: 1, Rows: []analytics.Row{{Key: []string{"user"}, Value: 3500}, {Key: []string{"kernel"}, Value: 1000}}}
	if iv := showInterval(byMode, analytics.PerSecond, 1); iv.Data.Value != 4500 {
		t.Errorf("by mode: value %d, want the sum 4500", iv.Data.Value)
	}
}
