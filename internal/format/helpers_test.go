package format

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

// Values of the D types the tests use.

func i8(v int64) value.Value  { return value.Value{Kind: value.Int, Int: v, Size: 1, Signed: true} }
func u8(v int64) value.Value  { return value.Value{Kind: value.Int, Int: v, Size: 1} }
func i16(v int64) value.Value { return value.Value{Kind: value.Int, Int: v, Size: 2, Signed: true} }
func u16(v int64) value.Value { return value.Value{Kind: value.Int, Int: v, Size: 2} }
func i32(v int64) value.Value { return value.Value{Kind: value.Int, Int: v, Size: 4, Signed: true} }
func u32(v int64) value.Value { return value.Value{Kind: value.Int, Int: v, Size: 4} }
func i64(v int64) value.Value { return value.IntValue(v) }
func u64(v uint64) value.Value {
	return value.UintValue(v)
}
func str(s string) value.Value { return value.StringValue(s) }

func vals(vs ...value.Value) []value.Value { return vs }

// aggBuilder fills an aggregation the way the kernel's aggregating
// functions would (dtrace_aggregate_* in uts/common/dtrace/dtrace.c).
type aggBuilder struct {
	a   *value.Aggregation
	idx map[string]int
}

func newAgg(name string, id int, fn value.AggFunc, p value.AggParams) *aggBuilder {
	return &aggBuilder{a: &value.Aggregation{Name: name, ID: id, Func: fn, Params: p}, idx: map[string]int{}}
}

func (b *aggBuilder) row(keys []value.Value) *value.AggValue {
	k := fmt.Sprintf("%#v", keys)
	i, ok := b.idx[k]
	if !ok {
		i = len(b.a.Rows)
		b.idx[k] = i
		v := value.AggValue{}
		switch b.a.Func {
		case value.Quantize:
			v.Buckets = make([]int64, value.QuantizeBuckets)
		case value.Lquantize:
			v.Buckets = make([]int64, value.LquantizeBuckets(b.a.Params))
		case value.Llquantize:
			v.Buckets = make([]int64, value.LlquantizeBuckets(b.a.Params))
		case value.Min:
			v.Min = 1<<63 - 1
		case value.Max:
			v.Max = -1 << 63
		}
		b.a.Rows = append(b.a.Rows, value.AggRow{Keys: keys, Val: v})
	}
	return &b.a.Rows[i].Val
}

// add applies the aggregating function to v (incr for the quantizing ones).
func (b *aggBuilder) add(keys []value.Value, v, incr int64) *aggBuilder {
	r := b.row(keys)
	switch b.a.Func {
	case value.Count:
		r.Count++
	case value.Sum:
		r.Sum += v
	case value.Avg:
		r.Count++
		r.Sum += v
	case value.Min:
		r.Count++
		r.Min = min(r.Min, v)
	case value.Max:
		r.Count++
		r.Max = max(r.Max, v)
	case value.Stddev:
		r.Count++
		r.Sum += v
		a := uint64(v)
		if v < 0 {
			a = uint64(-v)
		}
		hi, lo := bits.Mul64(a, a)
		var c uint64
		r.SumSqLo, c = bits.Add64(r.SumSqLo, lo, 0)
		r.SumSqHi += hi + c
	case value.Quantize:
		r.Buckets[value.QuantizeBucket(v)] += incr
	case value.Lquantize:
		r.Buckets[value.LquantizeBucket(b.a.Params, v)] += incr
	case value.Llquantize:
		r.Buckets[value.LlquantizeBucket(b.a.Params, v)] += incr
	}
	return b
}

// printAll runs PrintAll into a string.
func printAll(t *testing.T, o AggOpts, aggs ...*value.Aggregation) string {
	t.Helper()
	var sb strings.Builder
	if err := PrintAll(&sb, aggs, o); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// printa runs Printa into a string; format "" means no format.
func printa(t *testing.T, format string, o AggOpts, aggs ...*value.Aggregation) string {
	t.Helper()
	var p *Printf
	if format != "" {
		var err error
		if p, err = ParsePrintf(format); err != nil {
			t.Fatal(err)
		}
	}
	var sb strings.Builder
	if err := Printa(&sb, p, aggs, o); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// sprintf formats with a fresh Printf.
func sprintf(t *testing.T, format string, args ...value.Value) string {
	t.Helper()
	p, err := ParsePrintf(format)
	if err != nil {
		t.Fatalf("ParsePrintf(%q): %v", format, err)
	}
	s, err := p.Sprint(args)
	if err != nil {
		t.Fatalf("Format(%q): %v", format, err)
	}
	return s
}

// diff reports the first differing line.
func diff(t *testing.T, name, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s: line %d differs:\n got %q\nwant %q\n--- got ---\n%s--- want ---\n%s", name, i+1, gl, wl, got, want)
			return
		}
	}
	t.Errorf("%s: got %q, want %q", name, got, want)
}
