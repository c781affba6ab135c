package stats

import (
	"math/bits"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/value"
)

// TestExportScale: the exported distributions' buckets, [lo, hi) of v
// for the llquantize() of v-1, tile [0, 2^37] with no gap, each within
// one native bucket (2^(k-1), 2^k] of schema 0 (the first, [0, 2), is
// the zero bucket of threshold 1), and every v lands, as the kernel
// buckets v-1, in the bucket whose range holds v.
func TestExportScale(t *testing.T) {
	scale := shifted(ExportScale)
	q, err := value.LlquantizeOf(ExportScale)
	if err != nil {
		t.Fatal(err)
	}
	n := q.Buckets()
	prev := int64(0)
	for i := 0; i < n-1; i++ {
		lo, hi := scale(i)
		if lo != prev || hi <= lo {
			t.Fatalf("bucket %d is [%d, %d) after %d", i, lo, hi, prev)
		}
		prev = hi
		if i == 0 {
			if lo != 0 || hi != 2 {
				t.Fatalf("first bucket [%d, %d), want [0, 2)", lo, hi)
			}
			continue
		}
		k := bits.Len64(uint64(lo - 1)) // 2^(k-1) < lo <= 2^k
		if hi-1 > int64(1)<<k {
			t.Errorf("bucket %d [%d, %d) straddles the native bound %d", i, lo, hi, int64(1)<<k)
		}
	}
	if lo, hi := scale(n - 1); lo != prev || hi != analytics.Unbounded || prev != 1<<37+1 {
		t.Errorf("last bucket [%d, %d) after %d", lo, hi, prev)
	}
	var vs []int64
	for v := int64(1); v < 5000; v++ {
		vs = append(vs, v)
	}
	for k := 12; k <= 38; k++ {
		p := int64(1) << k
		vs = append(vs, p-1, p, p+1, p+p/3)
	}
	for _, v := range vs {
		i := q.Bucket(v - 1)
		lo, hi := scale(i)
		if v < lo || (hi != 0 && v >= hi) {
			t.Errorf("%d in bucket %d, [%d, %d)", v, i, lo, hi)
		}
	}
}

// An exported dataset's program quantizes the value minus one on
// ExportScale; the same dataset not exported, on LatencyScale.
func TestExportProgram(t *testing.T) {
	c := New()
	spec, err := Parse("syscall.latency[execname=dd]")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := c.Plan(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pl.Program, "llquantize(timestamp - self->sonde_ts, 10, 0, 10, 20)") {
		t.Errorf("not exported:\n%s", pl.Program)
	}
	spec.Export = true
	if pl, err = c.Plan(spec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pl.Program, "llquantize((timestamp - self->sonde_ts) - 1, 2, 0, 36, 16)") {
		t.Errorf("exported:\n%s", pl.Program)
	}
	if lo, hi := pl.Scale(100); lo != 24577 || hi != 26625 {
		t.Errorf("bucket 100 of the exported scale [%d, %d)", lo, hi)
	}
}
