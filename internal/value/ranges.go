package value

import "math"

// BucketRange is the range of each bucket of a quantization by index:
// [min, max), max math.MaxInt64 for the open last one (a bucket may end
// at 0: quantize()'s [-1, 0)); 0, 0 for what is not a quantization.
// (lquantize()'s first bucket is [MinInt64, base).)
func BucketRange(a *Aggregation) func(int) (int64, int64) {
	switch a.Func {
	case Llquantize:
		q, err := LlquantizeOf(a.Params)
		if err != nil {
			break
		}
		bounds := q.Bounds()
		return func(i int) (int64, int64) { return between(bounds, i) }
	case Lquantize:
		q, err := LquantizeOf(a.Params)
		if err != nil {
			break
		}
		return func(i int) (int64, int64) {
			if i == 0 {
				return math.MinInt64, q.Lower(1)
			}
			if i >= q.Buckets()-1 {
				return q.Lower(i), math.MaxInt64
			}
			return q.Lower(i), q.Lower(i + 1)
		}
	case Quantize:
		return quantizeRange
	}
	return func(int) (int64, int64) { return 0, 0 }
}

// quantizeRange is the range of quantize()'s bucket i. A negative
// bucket's label L = -2^k is its bound nearest zero: it holds
// -2^(k+1) < v <= -2^k, [2L+1, L+1) (the first, every v <= -2^62). Zero's
// bucket holds 0; a positive one labelled 2^k holds [2^k, 2^(k+1)) (the
// last is open: [2^62, MaxInt64)).
func quantizeRange(i int) (int64, int64) {
	l := QuantizeValue(i)
	switch {
	case i == 0:
		return math.MinInt64, l + 1
	case i < QuantizeZero:
		return 2*l + 1, l + 1
	case i == QuantizeZero:
		return 0, 1
	case i+1 < QuantizeBuckets:
		return l, QuantizeValue(i + 1)
	}
	return l, math.MaxInt64
}

// between is bucket i of bounds as LlquantizeLayout.Bounds gives them.
func between(bounds []int64, i int) (int64, int64) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if i >= 1 && i-1 < len(bounds) {
		lo = bounds[i-1]
	}
	if i < len(bounds) {
		hi = bounds[i]
	}
	return lo, hi
}
