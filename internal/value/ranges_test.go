package value

import (
	"math"
	"testing"
)

// Every value lands, as the kernel buckets it, in the bucket whose
// range BucketRange gives. (quantize()'s negative buckets were ranged
// from their label to the next label, [-4, -2) for the bucket of -7..-4:
// -7 was outside its own bucket's range.) lquantize() truncates a value
// to 32 bits first, as DTrace does: its values here are int32s.
func TestBucketRangeHoldsItsValues(t *testing.T) {
	var vs []int64
	for v := int64(-300); v <= 300; v++ {
		vs = append(vs, v)
	}
	for k := 8; k < 63; k++ {
		p := int64(1) << k
		vs = append(vs, p-1, p, p+1, -p+1, -p, -p-1)
	}
	vs = append(vs, math.MinInt64, math.MaxInt64)
	lq, _ := LquantizeOf(AggParams{Base: -50, Limit: 50, Step: 10})
	llq, _ := LlquantizeOf(AggParams{Factor: 10, Low: 0, High: 4, Steps: 20})
	for _, tc := range []struct {
		agg    *Aggregation
		bucket func(int64) int
	}{
		{&Aggregation{Func: Quantize}, QuantizeBucket},
		{&Aggregation{Func: Lquantize, Params: AggParams{Base: -50, Limit: 50, Step: 10}}, lq.Bucket},
		{&Aggregation{Func: Llquantize, Params: AggParams{Factor: 10, Low: 0, High: 4, Steps: 20}}, llq.Bucket},
	} {
		r := BucketRange(tc.agg)
		for _, v := range vs {
			if tc.agg.Func == Lquantize && int64(int32(v)) != v {
				continue
			}
			i := tc.bucket(v)
			lo, hi := r(i)
			if v < lo || (hi != math.MaxInt64 && v >= hi) {
				t.Errorf("%v: %d in bucket %d, ranged [%d, %d)", tc.agg.Func, v, i, lo, hi)
			}
		}
	}
}
