// Package value is the one model of traced data that the consumer produces
// and the formatters render: scalars, strings, stacks, and aggregations with
// their keys. It knows nothing of BPF nor of text layout.
package value

// Kind is the kind of a Value.
type Kind int

// Value kinds.
const (
	Int    Kind = iota // signed or unsigned integer of Size bytes
	String             // NUL-terminated text (Str)
	Stack              // kernel stack: Frames, symbolised
	UStack             // user stack: Frames, symbolised
	Sym                // kernel address shown as symbol (sym(), func())
	USym               // user address shown as symbol (usym(), ufunc())
	Mod                // kernel module of an address (mod())
	UMod               // user module of an address (umod())
	UAddr              // user address shown as symbol+offset (uaddr())
	Bytes              // raw memory (tracemem)
)

// Value is one traced datum.
type Value struct {
	Kind   Kind
	Int    int64  // Int: the bits; for unsigned values read as uint64(Int)
	Size   int    // Int: size in bytes (1, 2, 4, 8); Bytes: length; String: record size (strsize) when known, 0 if not
	Signed bool   // Int: whether the D type is signed
	Str    string // String; also the formatted symbol for Sym/USym/Mod/UMod/UAddr
	Frames []string
	Addr   uint64 // Sym/USym/Mod/UMod/UAddr: the raw address
	Raw    []byte // Bytes
	// Datum marks Bytes that are a traced value (trace() of a struct),
	// which print as a string when they look like one; other Bytes
	// (tracemem()) always print as a hex dump.
	Datum bool
	// PCs are the raw program counters of a Stack or UStack, when known.
	// Optional: DTrace sorts aggregation keys that are stacks by these
	// bytes; without them package format compares Frames instead.
	PCs []uint64
}

// IntValue returns a signed 64-bit integer value.
func IntValue(v int64) Value { return Value{Kind: Int, Int: v, Size: 8, Signed: true} }

// UintValue returns an unsigned 64-bit integer value.
func UintValue(v uint64) Value { return Value{Kind: Int, Int: int64(v), Size: 8} }

// StringValue returns a string value.
func StringValue(s string) Value { return Value{Kind: String, Str: s} }

// AggFunc is an aggregating function.
type AggFunc int

// Aggregating functions.
const (
	Count AggFunc = iota
	Sum
	Avg
	Min
	Max
	Stddev
	Quantize
	Lquantize
	Llquantize
)

var aggNames = [...]string{"count", "sum", "avg", "min", "max", "stddev", "quantize", "lquantize", "llquantize"}

func (f AggFunc) String() string { return aggNames[f] }

// AggParams are the static parameters of lquantize (Base, Limit, Step) and
// llquantize (Factor, Low, High, Steps).
type AggParams struct {
	Base, Limit, Step        int64
	Factor, Low, High, Steps int64
}

// AggValue is the merged (all CPUs) value of one aggregation entry.
//
//   - count: Count
//   - sum: Sum
//   - avg: Count, Sum (average is Sum/Count, integer division as DTrace)
//   - min/max: Min or Max (valid when Count > 0)
//   - stddev: Count, Sum, SumSq (128-bit sum of squares, hi:lo)
//   - quantize/lquantize/llquantize: Buckets, in the bucket order that
//     package format documents for each function.
type AggValue struct {
	Count   int64
	Sum     int64
	Min     int64
	Max     int64
	SumSqHi uint64
	SumSqLo uint64
	Buckets []int64
}

// Merge combines two values of one aggregation as if what went into both
// had gone into one: counts, sums, sums of squares (128-bit) and buckets
// add; min and max keep the extreme. a's buckets are not modified.
func (a AggValue) Merge(fn AggFunc, b AggValue) AggValue {
	switch fn {
	case Min:
		a.Min = min(a.Min, b.Min)
	case Max:
		a.Max = max(a.Max, b.Max)
	}
	a.Count += b.Count
	a.Sum += b.Sum
	lo := a.SumSqLo + b.SumSqLo
	if lo < a.SumSqLo {
		a.SumSqHi++ // carry
	}
	a.SumSqLo, a.SumSqHi = lo, a.SumSqHi+b.SumSqHi
	if len(b.Buckets) > 0 {
		sum := append([]int64(nil), a.Buckets...)
		for j := range sum {
			if j < len(b.Buckets) {
				sum[j] += b.Buckets[j]
			}
		}
		a.Buckets = sum
	}
	return a
}

// AggRow is one entry of an aggregation: its key tuple and its value.
type AggRow struct {
	Keys []Value
	Val  AggValue
}

// Aggregation is a snapshot of one aggregation variable.
type Aggregation struct {
	Name   string // without the @; "" for the anonymous aggregation
	ID     int    // order of first appearance in the program (DTrace's aggregation ID)
	Func   AggFunc
	Params AggParams
	Rows   []AggRow
	// Normal is the normalization factor (normalize()); 0 or 1 means none.
	Normal int64
}
