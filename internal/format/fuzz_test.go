package format

import (
	"io"
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

// FuzzPrintf: the parser and the formatter never panic, whatever the
// format and whatever the arguments (even of the wrong kinds).
func FuzzPrintf(f *testing.F) {
	for _, s := range []string{"%d", "%-*.*s|%@d", "%5.2@d %k %a %A %Y %T", "%hhx%llo%#X%+ 'i",
		"%S%C%c%e%g%G%f%p%?p%%", "%*k", "%3$d", "%", "%.*@u", "a%%b%-0+ #12.34lld"} {
		f.Add(s, int64(-1), int64(40), "x\x00y\n", uint8(4))
	}
	f.Fuzz(func(t *testing.T, format string, a, b int64, s string, size uint8) {
		p, err := ParsePrintf(format)
		if err != nil {
			return
		}
		sz := []int{1, 2, 4, 8, 0, 3}[int(size)%6]
		args := []value.Value{
			{Kind: value.Int, Int: a, Size: sz, Signed: size&1 == 0},
			{Kind: value.Int, Int: b, Size: 4, Signed: true},
			{Kind: value.String, Str: s, Size: int(size)},
			{Kind: value.Stack, Frames: []string{s, s}},
			{Kind: value.Sym, Str: s, Addr: uint64(a)},
			{Kind: value.Bytes, Raw: []byte(s)},
		}
		_ = p.Format(io.Discard, args)
		_ = p.Format(io.Discard, nil)
		for _, fn := range []value.AggFunc{value.Count, value.Avg, value.Stddev, value.Quantize, value.Lquantize, value.Llquantize} {
			agg := &value.Aggregation{Func: fn, Normal: b,
				Params: value.AggParams{Base: a % 100, Limit: b % 1000, Step: int64(size), Factor: int64(size), Low: 0, High: 2, Steps: int64(size)},
				Rows:   []value.AggRow{{Keys: args[:3], Val: value.AggValue{Count: a, Sum: b, Buckets: []int64{a, b, 1}}}}}
			_ = Printa(io.Discard, p, []*value.Aggregation{agg, agg}, AggOpts{SortPos: int(a), SortKeyPos: int(b)})
			_ = Printa(io.Discard, nil, []*value.Aggregation{agg}, AggOpts{})
		}
		for _, v := range args {
			_ = Trace(io.Discard, v, size&2 == 0)
		}
	})
}

// FuzzBuckets: the bucket functions never panic or loop, for any
// parameters, and always return a bucket in range.
func FuzzBuckets(f *testing.F) {
	f.Add(int64(0), int64(10), int64(1), int64(10), int64(0), int64(3), int64(10), int64(5))
	f.Add(int64(-100), int64(100), int64(7), int64(2), int64(0), int64(61), int64(2), int64(-1)<<62)
	f.Fuzz(func(t *testing.T, base, limit, step, factor, low, high, steps, v int64) {
		if b := value.QuantizeBucket(v); b < 0 || b >= value.QuantizeBuckets {
			t.Fatalf("QuantizeBucket(%d) = %d", v, b)
		}
		p := value.AggParams{Base: base, Limit: limit, Step: step, Factor: factor, Low: low, High: high % 64, Steps: steps}
		if n := value.LquantizeBuckets(p); n > 0 {
			if b := value.LquantizeBucket(p, v); b < 0 || b >= n {
				t.Fatalf("LquantizeBucket(%+v, %d) = %d of %d", p, v, b, n)
			}
		}
		if n := value.LlquantizeBuckets(p); n > 0 {
			if b := value.LlquantizeBucket(p, v); b < 0 || b >= n {
				t.Fatalf("LlquantizeBucket(%+v, %d) = %d of %d", p, v, b, n)
			}
			if n < 1<<16 {
				data := make([]int64, n)
				data[value.LlquantizeBucket(p, v)] = 1
				if _, err := appendPlot(nil, value.Llquantize, p, data, 1); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
