package value

import (
	"math"
	"testing"
)

// kernelQuantize is dtrace_aggregate_quantize of the illumos kernel
// (uts/common/dtrace/dtrace.c) transcribed: the reference for
// QuantizeBucket.
func kernelQuantize(val int64) int {
	bucketval := func(b int) int64 {
		if b < QuantizeZero {
			return -(int64(1) << uint(QuantizeZero-1-b))
		}
		if b == QuantizeZero {
			return 0
		}
		return int64(1) << uint(b-QuantizeZero-1)
	}
	if val < 0 {
		for i := 0; i < QuantizeZero; i++ {
			if val <= bucketval(i) {
				return i
			}
		}
		panic("unreachable")
	}
	for i := QuantizeZero + 1; i < QuantizeBuckets; i++ {
		if val < bucketval(i) {
			return i - 1
		}
	}
	return QuantizeBuckets - 1
}

func TestQuantizeBucket(t *testing.T) {
	tests := []struct {
		v    int64
		want int
	}{
		{0, 63}, {1, 64}, {2, 65}, {3, 65}, {4, 66}, {7, 66}, {8, 67},
		{-1, 62}, {-2, 61}, {-3, 61}, {-4, 60}, {-5, 60}, {-7, 60}, {-8, 59},
		{1 << 62, 126}, {math.MaxInt64, 126}, {1<<62 - 1, 125},
		{-(1 << 62), 0}, {-(1 << 62) + 1, 1}, {-(1 << 62) - 1, 0}, {math.MinInt64, 0},
	}
	for _, tt := range tests {
		if got := QuantizeBucket(tt.v); got != tt.want {
			t.Errorf("QuantizeBucket(%d) = %d, want %d", tt.v, got, tt.want)
		}
	}
	for i := 0; i < 64; i++ {
		for _, d := range []int64{-1, 0, 1} {
			for _, s := range []int64{1, -1} {
				v := s*(int64(1)<<uint(i)) + d
				if got, want := QuantizeBucket(v), kernelQuantize(v); got != want {
					t.Errorf("QuantizeBucket(%d) = %d, kernel %d", v, got, want)
				}
			}
		}
	}
	if QuantizeValue(0) != -(1<<62) || QuantizeValue(62) != -1 || QuantizeValue(63) != 0 || QuantizeValue(64) != 1 || QuantizeValue(126) != 1<<62 {
		t.Error("QuantizeValue labels")
	}
}

func TestLquantizeBucket(t *testing.T) {
	p := AggParams{Base: 0, Limit: 10, Step: 1}
	if n := LquantizeBuckets(p); n != 12 {
		t.Errorf("LquantizeBuckets = %d, want 12", n)
	}
	for _, tt := range []struct {
		v    int64
		want int
	}{{-1, 0}, {0, 1}, {9, 10}, {10, 11}, {1<<40 + 5, 6}, {1 << 32, 1}, {-1 << 40, 1}, {1<<32 - 1, 0}} {
		if got := LquantizeBucket(p, tt.v); got != tt.want {
			t.Errorf("LquantizeBucket(0,10,1; %d) = %d, want %d", tt.v, got, tt.want)
		}
	}
	// A step that does not divide limit - base: 3 levels, the overflow
	// bucket starts at 9.
	p = AggParams{Base: 0, Limit: 10, Step: 3}
	if n := LquantizeBuckets(p); n != 5 {
		t.Errorf("LquantizeBuckets(0,10,3) = %d, want 5", n)
	}
	for _, tt := range []struct {
		v    int64
		want int
	}{{2, 1}, {3, 2}, {8, 3}, {9, 4}} {
		if got := LquantizeBucket(p, tt.v); got != tt.want {
			t.Errorf("LquantizeBucket(0,10,3; %d) = %d, want %d", tt.v, got, tt.want)
		}
	}
	p = AggParams{Base: -100, Limit: 100, Step: 25}
	for _, tt := range []struct {
		v    int64
		want int
	}{{-101, 0}, {-100, 1}, {-76, 1}, {-75, 2}, {0, 5}, {99, 8}, {100, 9}} {
		if got := LquantizeBucket(p, tt.v); got != tt.want {
			t.Errorf("LquantizeBucket(-100,100,25; %d) = %d, want %d", tt.v, got, tt.want)
		}
	}
	for _, bad := range []AggParams{{Base: 0, Limit: 10, Step: 0}, {Base: 10, Limit: 0, Step: 1}, {Base: 0, Limit: 1 << 20, Step: 1}} {
		if LquantizeBuckets(bad) != 0 || LquantizeBucket(bad, 1) != -1 {
			t.Errorf("invalid %+v accepted", bad)
		}
	}
}

func TestLlquantizeBucket(t *testing.T) {
	p := AggParams{Factor: 10, Low: 0, High: 10, Steps: 20}
	// 10 buckets of width 1 for [1,10), then 18 per magnitude up to
	// 10^11: 1 + 9 + 18*10 + 1 (tst.steps.d.out shows the first ones).
	if n := LlquantizeBuckets(p); n != 191 {
		t.Errorf("LlquantizeBuckets = %d, want 191", n)
	}
	for _, tt := range []struct {
		v    int64
		want int
	}{{-5, 0}, {0, 0}, {1, 1}, {9, 9}, {10, 10}, {14, 10}, {15, 11}, {99, 27}, {100, 28}, {149, 28}, {150, 29},
		{99999999999, 189}, {100000000000, 190}, {math.MaxInt64, 190}} {
		if got := LlquantizeBucket(p, tt.v); got != tt.want {
			t.Errorf("LlquantizeBucket(10,0,10,20; %d) = %d, want %d", tt.v, got, tt.want)
		}
	}
	// Factor 2, two steps per magnitude: of [0,2^(m+1)) cut in two only
	// [2^m,2^(m+1)) is above 2^m, so this is a log2 histogram from 1.
	p = AggParams{Factor: 2, Low: 0, High: 3, Steps: 2}
	for _, tt := range []struct {
		v    int64
		want int
	}{{0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {8, 4}, {15, 4}, {16, 5}} {
		if got := LlquantizeBucket(p, tt.v); got != tt.want {
			t.Errorf("LlquantizeBucket(2,0,3,2; %d) = %d, want %d", tt.v, got, tt.want)
		}
	}
	for _, bad := range []AggParams{
		{Factor: 1, Low: 0, High: 3, Steps: 2},   // factor < 2
		{Factor: 10, Low: 3, High: 3, Steps: 10}, // low >= high
		{Factor: 10, Low: 0, High: 3, Steps: 5},  // steps < factor
		{Factor: 4, Low: 0, High: 3, Steps: 6},   // steps % factor
		{Factor: 10, Low: 0, High: 19, Steps: 10},
	} {
		if LlquantizeBuckets(bad) != 0 || LlquantizeBucket(bad, 1) != -1 {
			t.Errorf("invalid %+v accepted", bad)
		}
	}
}

// kernelLlquantize is dtrace_aggregate_llquantize_bucket of the illumos
// kernel transcribed: the reference for LlquantizeLayout.Bucket, which
// walks the unrolled Orders table the code generator compiles.
func kernelLlquantize(q LlquantizeLayout, value int64) int {
	this := int64(1)
	base := 1
	order := int64(0)
	for ; order < q.Low; order++ {
		this *= q.Factor
	}
	last := this
	if value < last {
		return 0
	}
	for this *= q.Factor; order <= q.High; order++ {
		nbuckets := q.Steps
		if this <= q.Steps {
			nbuckets = this
		}
		next := this * q.Factor
		if next < this {
			value = this - 1
		}
		if value < this {
			return base + int((value-last)/(this/nbuckets))
		}
		base += int(nbuckets - nbuckets/q.Factor)
		last = this
		this = next
	}
	return base
}

func TestLlquantizeKernel(t *testing.T) {
	for _, p := range []AggParams{{Factor: 10, Low: 0, High: 10, Steps: 20}, {Factor: 2, Low: 0, High: 3, Steps: 2},
		{Factor: 10, Low: 3, High: 6, Steps: 100}, {Factor: 4, Low: 1, High: 9, Steps: 16}, {Factor: 2, Low: 0, High: 60, Steps: 2}} {
		q, err := LlquantizeOf(p)
		if err != nil {
			t.Fatal(err)
		}
		vals := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
		for _, b := range q.Bounds() {
			vals = append(vals, b-1, b, b+1)
		}
		for _, v := range vals {
			if got, want := q.Bucket(v), kernelLlquantize(q, v); got != want {
				t.Errorf("%+v: Bucket(%d) = %d, kernel %d", p, v, got, want)
			}
		}
		if n := len(q.Bounds()) + 1; n != q.Buckets() {
			t.Errorf("%+v: %d bounds for %d buckets", p, n-1, q.Buckets())
		}
	}
}
