package analytics

import (
	"encoding/json"
	"fmt"
	"math"
)

// Unbounded is the Max of a distribution's open last bucket, which holds
// every value from its Min up. No closed bucket ends there: a closed
// bucket's Max is the first value above it, and a bucket holding
// math.MaxInt64 is the open one.
//
// A Max of 0 is a bucket that ends at 0, as lquantize()'s [-1, 0) and its
// underflow [math.MinInt64, 0) when it starts at 0 do. (0 used to mark the
// open bucket: those two were taken for it. LegacyMax reads that
// marking.)
const Unbounded = math.MaxInt64

// Open reports whether b is the open last bucket.
func (b Bucket) Open() bool { return b.Max == Unbounded }

// LegacyMax is the Max of a bucket [min, max) recorded when 0 marked the
// open bucket: 0 is Unbounded when min >= 0 (no closed bucket [0, 0) or
// [5, 0) exists), and a bucket that ends at 0 otherwise (quantize()'s
// [-1, 0), lquantize()'s underflow). The one case it cannot tell is an
// lquantize() whose range ends below zero: its open bucket, [limit, +inf)
// with a negative limit, reads as [limit, 0). Data recorded since is
// unambiguous, and LegacyMax leaves it as it is.
func LegacyMax(min, max int64) int64 {
	if max == 0 && min >= 0 {
		return Unbounded
	}
	return max
}

// Bound is a bucket's Max. JSON leaves it out for the open bucket
// (omitzero asks IsZero), and only for it.
type Bound int64

// IsZero reports whether b is Unbounded: what JSON leaves out.
func (b Bound) IsZero() bool { return b == Unbounded }

// UnmarshalJSON reads a bucket as JSON gives it: no "max" is the open
// bucket.
func (b *Bucket) UnmarshalJSON(data []byte) error {
	type plain Bucket // without this method
	v := plain{Max: Unbounded}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("bucket: %w", err)
	}
	*b = Bucket(v)
	return nil
}
