package format

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

// dt_print_quantize shows buckets -1, 0 and 1 when there is no data, and
// (its scan stopping one short) when only the last bucket has data.
func TestQuantizeEmpty(t *testing.T) {
	want := "\n" + hdr +
		"              -1 |                                         0        \n" +
		"               0 |                                         0        \n" +
		"               1 |                                         0        \n"
	for _, data := range [][]int64{nil, make([]int64, 127)} {
		b, err := appendPlot(nil, value.Quantize, value.AggParams{}, data, 1)
		if err != nil || string(b) != want {
			t.Errorf("empty quantize = %q, %v", b, err)
		}
	}
	data := make([]int64, 127)
	data[126] = 3
	if b, _ := appendPlot(nil, value.Quantize, value.AggParams{}, data, 1); string(b) != want {
		t.Errorf("last bucket only = %q", b)
	}
}
