package value

// Bucket layouts of quantize(), lquantize() and llquantize(): the one
// definition that the code generator compiles into BPF, the consumer sizes
// values by, and the printers label rows with.
//
// Layouts are the illumos kernel's (usr/src/uts/common/dtrace/dtrace.c:
// dtrace_aggregate_quantize, dtrace_aggregate_lquantize,
// dtrace_aggregate_llquantize_bucket, and DTRACE_QUANTIZE_* in
// sys/dtrace.h). AggValue.Buckets holds exactly the bucket counts (DTrace's
// leading parameter word of lquantize and llquantize records is not
// stored: the parameters are in Aggregation.Params). A shorter slice reads
// as zeros beyond its end.

import (
	"fmt"
	"math"
	"math/bits"
)

// Quantize layout (DTRACE_QUANTIZE_NBUCKETS, DTRACE_QUANTIZE_ZEROBUCKET,
// DTRACE_QUANTIZE_BUCKETVAL): 127 buckets of int64 counts.
//
//	index  0 .. 62   negative values: bucket i holds v with
//	                 -2^(63-i) <  v <= -2^(62-i)   (bucket 0: v <= -2^62,
//	                 bucket 61: -4 < v <= -2, bucket 62: v == -1)
//	index 63         v == 0
//	index 64 .. 126  positive values: bucket i holds v with
//	                 2^(i-64) <= v < 2^(i-63)      (bucket 64: v == 1,
//	                 bucket 65: 2 <= v < 4, bucket 126: v >= 2^62)
//
// The label of bucket i (QuantizeValue) is its bound nearest zero:
// -2^(62-i), 0 or 2^(i-64).
const (
	QuantizeBuckets = 127
	QuantizeZero    = 63
)

// AggBuckets is the number of buckets an aggregation of function f keeps:
// 0 for the functions that are not quantizations.
func AggBuckets(f AggFunc, p AggParams) int {
	switch f {
	case Quantize:
		return QuantizeBuckets
	case Lquantize:
		return LquantizeBuckets(p)
	case Llquantize:
		return LlquantizeBuckets(p)
	}
	return 0
}

// QuantizeValue is DTRACE_QUANTIZE_BUCKETVAL: the value that labels bucket i.
func QuantizeValue(i int) int64 {
	switch {
	case i < QuantizeZero:
		return -(int64(1) << uint(QuantizeZero-1-i))
	case i == QuantizeZero:
		return 0
	}
	return int64(1) << uint(i-QuantizeZero-1)
}

// QuantizeBucket is dtrace_aggregate_quantize's choice of bucket for v:
// for negative v the first bucket whose label is >= v, otherwise the last
// bucket whose label is <= v.
func QuantizeBucket(v int64) int {
	switch {
	case v == 0:
		return QuantizeZero
	case v > 0:
		// 2^k <= v < 2^(k+1): bucket 64+k.
		return QuantizeZero + 1 + (63 - bits.LeadingZeros64(uint64(v)))
	case v == math.MinInt64:
		return 0
	}
	// 2^k <= -v < 2^(k+1): bucket 62-k, or 0 for -v >= 2^62.
	k := 63 - bits.LeadingZeros64(uint64(-v))
	if i := QuantizeZero - 1 - k; i > 0 {
		return i
	}
	return 0
}

// LquantizeLayout is the lquantize() layout as DTrace encodes its parameters
// (DTRACE_LQUANTIZE_BASE, _STEP, _LEVELS): a 32-bit base, a 16-bit step and
// the number of levels (limit - base) / step, at most 65535. Bucket 0
// counts values below Base, bucket 1+k values in [Base+k*Step,
// Base+(k+1)*Step), bucket Levels+1 values at or above Base+Levels*Step
// (which is below limit when step does not divide limit-base).
type LquantizeLayout struct {
	Base   int32
	Step   uint16
	Levels uint16
}

// LquantizeOf checks lquantize() parameters as DTrace does and returns
// their layout.
func LquantizeOf(p AggParams) (LquantizeLayout, error) {
	bad := p.Step <= 0 || p.Step > math.MaxUint16 || p.Base < math.MinInt32 || p.Base > math.MaxInt32 ||
		p.Limit < math.MinInt32 || p.Limit > math.MaxInt32 || p.Limit <= p.Base
	if !bad {
		n := (p.Limit - p.Base) / p.Step
		if n > 0 && n <= math.MaxUint16 {
			return LquantizeLayout{Base: int32(p.Base), Step: uint16(p.Step), Levels: uint16(n)}, nil
		}
	}
	return LquantizeLayout{}, fmt.Errorf("invalid lquantize() parameters %d, %d, %d", p.Base, p.Limit, p.Step)
}

// Buckets is the number of buckets: Levels + 2 (dt_cc.c).
func (q LquantizeLayout) Buckets() int { return int(q.Levels) + 2 }

// Bucket is dtrace_aggregate_lquantize's choice of bucket for v. Like the
// kernel it first truncates v to 32 bits: lquantize(1<<32, 0, 10) counts
// in the zero bucket. (The kernel computes val - base in 32 bits, which can
// overflow; this computes it in 64.)
func (q LquantizeLayout) Bucket(v int64) int {
	val := int32(v)
	if val < q.Base {
		return 0
	}
	level := (int64(val) - int64(q.Base)) / int64(q.Step)
	if level < int64(q.Levels) {
		return int(level) + 1
	}
	return int(q.Levels) + 1
}

// Lower is the lower bound of bucket i >= 1.
func (q LquantizeLayout) Lower(i int) int64 { return int64(q.Base) + int64(i-1)*int64(q.Step) }

// LquantizeBuckets is the number of lquantize() buckets, 0 for parameters
// DTrace would reject.
func LquantizeBuckets(p AggParams) int {
	q, err := LquantizeOf(p)
	if err != nil {
		return 0
	}
	return q.Buckets()
}

// LquantizeBucket is the bucket of v, -1 for invalid parameters.
func LquantizeBucket(p AggParams, v int64) int {
	q, err := LquantizeOf(p)
	if err != nil {
		return -1
	}
	return q.Bucket(v)
}

// LlquantizeLayout is the llquantize() layout: factor, low and high magnitudes
// and steps per magnitude, all 16-bit in DTrace. Bucket 0 counts values
// below Factor^Low (negative ones included); then each order of magnitude
// m in [Low, High] contributes the buckets of [Factor^m, Factor^(m+1)) cut
// into steps of Factor^(m+1)/Steps (or of 1 while Factor^(m+1) <= Steps),
// skipping those below Factor^m; the last bucket counts values at or above
// Factor^(High+1).
type LlquantizeLayout struct {
	Factor, Low, High, Steps int64
}

// LlquantizeOf checks llquantize() parameters as DTrace does (dt_cc.c)
// and returns their layout.
func LlquantizeOf(p AggParams) (LlquantizeLayout, error) {
	q := LlquantizeLayout{p.Factor, p.Low, p.High, p.Steps}
	bad := q.Factor < 2 || q.Low < 0 || q.Low >= q.High || q.Steps < q.Factor ||
		q.Factor > math.MaxUint16 || q.High > math.MaxUint16 || q.Steps > math.MaxUint16 ||
		q.Steps%q.Factor != 0
	if !bad {
		// steps must evenly divide a power of the factor, and
		// factor^(high+1) must not overflow.
		v := q.Factor
		for v < q.Steps {
			v *= q.Factor
		}
		bad = v%q.Steps != 0
		order := int64(1)
		for i := int64(0); !bad && i <= q.High+1; i++ {
			if order > math.MaxInt64/q.Factor {
				bad = true
			}
			order *= q.Factor
		}
	}
	if bad {
		return q, fmt.Errorf("invalid llquantize() parameters %d, %d, %d, %d", p.Factor, p.Low, p.High, p.Steps)
	}
	return q, nil
}

// LlqOrder is one order of magnitude of an llquantize(): values in
// [Last, Upper) go to bucket Base + (v-Last)/Width.
type LlqOrder struct {
	Upper, Last, Width, Base int64
}

// Orders lists the orders of magnitude from Low to High. It is the one
// statement of the bucketing: Bucket walks it, and the code generator
// unrolls it into BPF.
func (q LlquantizeLayout) Orders() []LlqOrder {
	this := int64(1)
	for i := int64(0); i < q.Low; i++ {
		this *= q.Factor
	}
	last := this
	base := int64(1)
	this *= q.Factor
	var out []LlqOrder
	for order := q.Low; order <= q.High; order++ {
		nb := min(q.Steps, this)
		out = append(out, LlqOrder{Upper: this, Last: last, Width: this / nb, Base: base})
		base += nb - nb/q.Factor
		last = this
		this *= q.Factor
	}
	return out
}

// Bucket is the bucket of v.
func (q LlquantizeLayout) Bucket(v int64) int {
	t := q.Orders()
	if len(t) == 0 || v < t[0].Last {
		return 0
	}
	for _, s := range t {
		if v < s.Upper {
			return int(s.Base + (v-s.Last)/s.Width)
		}
	}
	l := t[len(t)-1]
	return int(l.Base + (l.Upper-1-l.Last)/l.Width + 1)
}

// Buckets is the number of buckets: one more than the bucket of
// INT64_MAX, as the kernel sizes the record.
func (q LlquantizeLayout) Buckets() int { return q.Bucket(math.MaxInt64) + 1 }

// Bounds lists the lower bound of every bucket but the first: bucket i
// (i >= 1) holds [bounds[i-1], bounds[i]), the last [bounds[len-1], ∞).
func (q LlquantizeLayout) Bounds() []int64 {
	var bounds []int64
	for _, o := range q.Orders() {
		for v := o.Last; v < o.Upper; v += o.Width {
			bounds = append(bounds, v)
		}
	}
	if t := q.Orders(); len(t) > 0 {
		bounds = append(bounds, t[len(t)-1].Upper)
	}
	return bounds
}

// LlquantizeBuckets is the number of llquantize() buckets, 0 for
// parameters DTrace would reject.
func LlquantizeBuckets(p AggParams) int {
	q, err := LlquantizeOf(p)
	if err != nil {
		return 0
	}
	return q.Buckets()
}

// LlquantizeBucket is the bucket of v, -1 for invalid parameters.
func LlquantizeBucket(p AggParams, v int64) int {
	q, err := LlquantizeOf(p)
	if err != nil {
		return -1
	}
	return q.Bucket(v)
}
