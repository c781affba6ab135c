package format

// Bucket layouts of quantize(), lquantize() and llquantize(), shared with
// the BPF code generator, and their plots.
//
// Layouts are the illumos kernel's (usr/src/uts/common/dtrace/dtrace.c:
// dtrace_aggregate_quantize, dtrace_aggregate_lquantize,
// dtrace_aggregate_llquantize_bucket, and DTRACE_QUANTIZE_* in
// sys/dtrace.h). value.AggValue.Buckets holds exactly the bucket counts
// (DTrace's leading parameter word of lquantize and llquantize records is
// not stored: the parameters are in value.Aggregation.Params). A shorter
// slice reads as zeros beyond its end.
//
// Plots are dt_print_quantize, dt_print_lquantize, dt_print_llquantize and
// dt_print_quantline in libdtrace/common/dt_consume.c.

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/sonde-trace/sonde/internal/value"
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
func AggBuckets(f value.AggFunc, p value.AggParams) int {
	switch f {
	case value.Quantize:
		return QuantizeBuckets
	case value.Lquantize:
		return LquantizeBuckets(p)
	case value.Llquantize:
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

// lqParams are the lquantize() parameters as DTrace encodes them
// (DTRACE_LQUANTIZE_BASE, _STEP, _LEVELS): a 32-bit base, a 16-bit step and
// the number of levels (limit - base) / step, at most 65535.
type lqParams struct {
	base   int32
	step   uint16
	levels uint16
}

func lquantizeParams(p value.AggParams) (lqParams, error) {
	if p.Step <= 0 || p.Step > math.MaxUint16 || p.Base < math.MinInt32 || p.Base > math.MaxInt32 ||
		p.Limit < math.MinInt32 || p.Limit > math.MaxInt32 || p.Limit <= p.Base {
		return lqParams{}, fmt.Errorf("format: invalid lquantize() parameters %d, %d, %d", p.Base, p.Limit, p.Step)
	}
	n := (p.Limit - p.Base) / p.Step
	if n <= 0 || n > math.MaxUint16 {
		return lqParams{}, fmt.Errorf("format: invalid lquantize() parameters %d, %d, %d", p.Base, p.Limit, p.Step)
	}
	return lqParams{base: int32(p.Base), step: uint16(p.Step), levels: uint16(n)}, nil
}

// LquantizeBuckets is the number of lquantize() buckets: levels + 2, where
// levels = (limit - base) / step (dt_cc.c). Bucket 0 counts values below
// base, bucket 1+k values in [base+k*step, base+(k+1)*step), bucket
// levels+1 values at or above base+levels*step (which is below limit when
// step does not divide limit-base). It returns 0 for parameters DTrace
// would reject.
func LquantizeBuckets(p value.AggParams) int {
	q, err := lquantizeParams(p)
	if err != nil {
		return 0
	}
	return int(q.levels) + 2
}

// LquantizeBucket is dtrace_aggregate_lquantize's choice of bucket for v.
// Like the kernel it first truncates v to 32 bits: lquantize(1<<32, 0, 10)
// counts in the zero bucket. (The kernel computes val - base in 32 bits,
// which can overflow; this computes it in 64.) It returns -1 for invalid
// parameters.
func LquantizeBucket(p value.AggParams, v int64) int {
	q, err := lquantizeParams(p)
	if err != nil {
		return -1
	}
	val := int32(v)
	if val < q.base {
		return 0
	}
	level := (int64(val) - int64(q.base)) / int64(q.step)
	if level < int64(q.levels) {
		return int(level) + 1
	}
	return int(q.levels) + 1
}

// llqParams are llquantize()'s factor, low and high magnitudes and steps
// per magnitude, all 16-bit in DTrace.
type llqParams struct {
	factor, low, high, nsteps int64
}

func llquantizeParams(p value.AggParams) (llqParams, error) {
	q := llqParams{p.Factor, p.Low, p.High, p.Steps}
	bad := q.factor < 2 || q.low < 0 || q.low >= q.high || q.nsteps < q.factor ||
		q.factor > math.MaxUint16 || q.high > math.MaxUint16 || q.nsteps > math.MaxUint16 ||
		q.nsteps%q.factor != 0
	if !bad {
		// dt_cc.c: steps must evenly divide a power of the factor, and
		// factor^(high+1) must not overflow.
		v := q.factor
		for v < q.nsteps {
			v *= q.factor
		}
		bad = v%q.nsteps != 0
		order := int64(1)
		for i := int64(0); !bad && i <= q.high+1; i++ {
			if order > math.MaxInt64/q.factor {
				bad = true
			}
			order *= q.factor
		}
	}
	if bad {
		return q, fmt.Errorf("format: invalid llquantize() parameters %d, %d, %d, %d", p.Factor, p.Low, p.High, p.Steps)
	}
	return q, nil
}

// LlquantizeBuckets is the number of llquantize() buckets: one more than
// the bucket of INT64_MAX, as the kernel sizes the record
// (dtrace_ecb_aggregation_create). It returns 0 for parameters DTrace would
// reject.
func LlquantizeBuckets(p value.AggParams) int {
	q, err := llquantizeParams(p)
	if err != nil {
		return 0
	}
	return q.bucket(math.MaxInt64) + 1
}

// LlquantizeBucket is dtrace_aggregate_llquantize_bucket: bucket 0 counts
// values below factor^low (negative ones included); then each order of
// magnitude m in [low, high] contributes the buckets of
// [factor^m, factor^(m+1)) cut into steps of factor^(m+1)/nsteps (or of 1
// while factor^(m+1) <= nsteps), skipping those below factor^m; the last
// bucket counts values at or above factor^(high+1). It returns -1 for
// invalid parameters.
func LlquantizeBucket(p value.AggParams, v int64) int {
	q, err := llquantizeParams(p)
	if err != nil {
		return -1
	}
	return q.bucket(v)
}

func (q llqParams) bucket(value int64) int {
	this := int64(1)
	base := 1
	order := int64(0)
	for ; order < q.low; order++ {
		this *= q.factor
	}
	last := this
	if value < last {
		return 0
	}
	for this *= q.factor; order <= q.high; order++ {
		nbuckets := q.nsteps
		if this <= q.nsteps {
			nbuckets = this
		}
		next := this * q.factor
		if next < this {
			value = this - 1 // 64-bit overflow: clamp, as the kernel does
		}
		if value < this {
			return base + int((value-last)/(this/nbuckets))
		}
		base += int(nbuckets - nbuckets/q.factor)
		last = this
		this = next
	}
	return base
}

// bucket returns data[i], or 0 beyond the end.
func bucket(data []int64, i int) int64 {
	if i >= 0 && i < len(data) {
		return data[i]
	}
	return 0
}

// plot accumulates the rows of a distribution: dt_print_quantline needs
// the total and the signs of all displayed rows before printing any.
type plot struct {
	labels []string
	counts []int64
}

func (p *plot) row(label string, count int64) {
	p.labels = append(p.labels, label)
	p.counts = append(p.counts, count)
}

// write prints the header (dt_print_quanthdr, with its leading newline)
// and the rows: "%16s " of the label, then dt_print_quantline.
func (p *plot) write(b []byte, normal uint64) []byte {
	var positives, negatives bool
	total := ldZero()
	for _, c := range p.counts {
		positives = positives || c > 0
		negatives = negatives || c < 0
		total = total.add(ldInt(c).abs()) // dt_quantize_total without aggzoom
	}
	b = append(b, "\n           value  ------------- Distribution ------------- count    \n"...)
	for i, l := range p.labels {
		b = fill(b, cspec{width: 16, prec: -1}, l)
		b = append(b, ' ')
		b = quantline(b, p.counts[i], normal, total, positives, negatives)
	}
	return b
}

const (
	ats    = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"
	spaces = "                                        "
)

// quantline is dt_print_quantline: a bar of up to 40 '@' scaled to the sum
// of the absolute counts of the displayed rows, rounded to nearest, then
// the count left-justified in 9 columns. With negative counts the bar grows
// left of the '|'; with both signs each side gets 20 columns.
func quantline(b []byte, val int64, normal uint64, total ld, positives, negatives bool) []byte {
	depth := func(length int64) int {
		if total.isZero() {
			return 0
		}
		f := ldInt(val).abs().mul(ldInt(length)).quo(total)
		d := int(f.add(ldHalf).trunc())
		if d > int(length) {
			d = int(length)
		}
		return d
	}
	count := func(b []byte) []byte {
		b = append(b, ' ')
		return fill(b, cspec{left: true, width: 9, prec: -1}, strconv.FormatInt(normalize(val, normal), 10))
	}
	if !negatives {
		d := 0
		if positives {
			d = depth(40)
		}
		b = append(b, '|')
		b = append(b, ats[:d]...)
		b = append(b, spaces[d:]...)
		return append(count(b), '\n')
	}
	if !positives {
		d := depth(40)
		b = append(b, spaces[d:]...)
		b = append(b, ats[:d]...)
		b = append(b, '|')
		return append(count(b), '\n')
	}
	d := depth(20)
	if val <= 0 {
		b = append(b, spaces[20+d:]...)
		b = append(b, ats[:d]...)
		b = append(b, '|')
		b = append(b, spaces[:20]...)
	} else {
		b = append(b, spaces[:20]...)
		b = append(b, '|')
		b = append(b, ats[:d]...)
		b = append(b, spaces[20+d:]...)
	}
	return append(count(b), '\n')
}

// normalize is "(long long)val / normal" with normal a uint64_t: C divides
// unsigned, which only matters for negative values under normalize().
func normalize(v int64, normal uint64) int64 {
	if normal <= 1 {
		return v
	}
	return int64(uint64(v) / normal)
}

// shownRange is the first and last bins dt_print_*quantize display: one
// zero bin either side of the nonzero ones, or bins [emptyLo, emptyHi] when
// all are zero.
func shownRange(data []int64, n, emptyLo, emptyHi int) (int, int) {
	first := 0
	for first < n && bucket(data, first) == 0 {
		first++
	}
	if first == n {
		return emptyLo, emptyHi
	}
	if first > 0 {
		first--
	}
	last := n - 1
	for last > 0 && bucket(data, last) == 0 {
		last--
	}
	if last < n-1 {
		last++
	}
	return first, last
}

// appendPlot prints the distribution of a quantize(), lquantize() or
// llquantize() value.
func appendPlot(b []byte, fn value.AggFunc, params value.AggParams, data []int64, normal uint64) ([]byte, error) {
	var p plot
	switch fn {
	case value.Quantize:
		first, last := quantizeRange(data)
		for i := first; i <= last; i++ {
			p.row(strconv.FormatInt(QuantizeValue(i), 10), bucket(data, i))
		}
	case value.Lquantize:
		q, err := lquantizeParams(params)
		if err != nil {
			return b, err
		}
		levels := int(q.levels)
		first, last := shownRange(data, levels+2, 0, 2)
		for i := first; i <= last; i++ {
			var label string
			switch i {
			case 0:
				label = "< " + strconv.Itoa(int(q.base))
			case levels + 1:
				label = ">= " + strconv.Itoa(int(q.base)+levels*int(q.step))
			default:
				label = strconv.Itoa(int(q.base) + (i-1)*int(q.step))
			}
			p.row(label, bucket(data, i))
		}
	case value.Llquantize:
		q, err := llquantizeParams(params)
		if err != nil {
			return b, err
		}
		llquantizeRows(&p, q, data)
	default:
		return b, fmt.Errorf("format: %s is not a distribution", fn)
	}
	return p.write(b, normal), nil
}

// quantizeRange is the first_bin/last_bin logic of dt_print_quantize: one
// zero bucket either side of the nonzero ones; with no data the buckets
// -1, 0 and 1. (Its scan for the first nonzero bucket stops one short of
// the last, so data only in the last bucket also shows -1, 0, 1.)
func quantizeRange(data []int64) (int, int) {
	n := QuantizeBuckets
	first := 0
	for first < n-1 && bucket(data, first) == 0 {
		first++
	}
	if first == n-1 {
		return QuantizeZero - 1, QuantizeZero + 1
	}
	if first > 0 {
		first--
	}
	last := n - 1
	for last > 0 && bucket(data, last) == 0 {
		last--
	}
	if last < n-1 {
		last++
	}
	return first, last
}

// llquantizeRows is dt_print_llquantize's walk over the magnitudes.
func llquantizeRows(p *plot, q llqParams, data []int64) {
	levels := q.bucket(math.MaxInt64) + 1
	first, last := shownRange(data, levels, 0, 1)
	value := int64(1)
	order := int64(0)
	for ; order < q.low; order++ {
		value *= q.factor
	}
	step := func(next int64) int64 {
		if next > q.nsteps {
			return next / q.nsteps
		}
		return 1
	}
	next := value * q.factor
	st := step(next)
	if first == 0 {
		p.row("< "+strconv.FormatInt(value, 10), bucket(data, 0))
	}
	bin := 1
	for order <= q.high {
		if bin >= first && bin <= last {
			p.row(strconv.FormatInt(value, 10), bucket(data, bin))
		}
		bin++
		if value += st; value != next {
			continue
		}
		next = value * q.factor
		st = step(next)
		order++
	}
	if last < bin {
		return
	}
	p.row(">= "+strconv.FormatInt(value, 10), bucket(data, bin))
}
