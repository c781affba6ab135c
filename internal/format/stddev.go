package format

// stddev() as DTrace computes it: dt_stddev in libdtrace/common/dt_consume.c.

import (
	"math/big"

	"github.com/sonde-trace/sonde/internal/value"
)

// stddev is dt_stddev: the integer square root of the average of the
// squares (the 128-bit sum of squares divided, unsigned, by normal twice and
// by the count) less the square of the average (sum / normal / count,
// signed, then made positive), all in 128-bit unsigned arithmetic that
// wraps. It returns 0 when the count or normal is 0 (DTrace would divide by
// zero).
func stddev(v value.AggValue, normal uint64) uint64 {
	if v.Count == 0 || normal == 0 {
		return 0
	}
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	sq := new(big.Int).SetUint64(v.SumSqHi)
	sq.Lsh(sq, 64).Or(sq, new(big.Int).SetUint64(v.SumSqLo))
	n := new(big.Int).SetUint64(normal)
	sq.Quo(sq, n)
	sq.Quo(sq, n)
	sq.Quo(sq, new(big.Int).SetUint64(uint64(v.Count)))

	// norm_avg = (int64_t)data[1] / (int64_t)normal / (int64_t)data[0].
	// (Where C would trap, on INT64_MIN / -1, Go wraps.)
	avg := v.Sum / int64(normal) / v.Count
	if avg < 0 {
		avg = -avg
	}
	a := new(big.Int).SetUint64(uint64(avg))
	a.Mul(a, a)

	diff := new(big.Int).Sub(sq, a)
	diff.Mod(diff, mod) // dt_subtract_128 wraps
	return new(big.Int).Sqrt(diff).Uint64()
}
