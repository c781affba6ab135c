package format

// DTrace totals distributions in C "long double": the height of each bar
// (dt_print_quantline, dt_quantize_total in dt_consume.c) and the sort order
// of quantize(), lquantize() and llquantize() aggregations
// (dt_aggregate_quantizedsum and friends in dt_aggregate.c). On x86, where
// DTrace's reference outputs were produced, long double is the x87 80-bit
// format with a 64-bit significand; the test tst.neglquant.d even depends on
// that precision. ld emulates it with math/big: every operation rounds to 64
// significant bits, to nearest even, as the x87 unit does.

import "math/big"

const ldPrec = 64

// ld is an x87 extended-precision value.
type ld struct{ f *big.Float }

func newLD() *big.Float { return new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven) }

// ldInt converts an int64 exactly (a 64-bit significand holds any int64).
func ldInt(v int64) ld { return ld{newLD().SetInt64(v)} }

func ldZero() ld { return ld{newLD()} }

func (a ld) add(b ld) ld { return ld{newLD().Add(a.f, b.f)} }
func (a ld) mul(b ld) ld { return ld{newLD().Mul(a.f, b.f)} }
func (a ld) quo(b ld) ld { return ld{newLD().Quo(a.f, b.f)} }
func (a ld) abs() ld     { return ld{newLD().Abs(a.f)} }
func (a ld) cmp(b ld) int {
	return a.f.Cmp(b.f)
}
func (a ld) isZero() bool { return a.f.Sign() == 0 }

// trunc converts to an unsigned integer the way a C cast does: toward zero.
func (a ld) trunc() uint64 {
	u, _ := a.f.Uint64()
	return u
}

// ldHalf is 0.5.
var ldHalf = ld{newLD().SetFloat64(0.5)}
