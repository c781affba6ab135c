package codegen

import (
	"math/rand"
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/value"
)

// extremeVM runs the code aggApply emits for min() or max() on a zeroed
// value, once per value of vs, and returns the VM and the value's address.
func extremeVM(t *testing.T, f value.AggFunc, vs []int64, interrupt func(m *bpfVM, addr uint64)) (*bpfVM, *plan.Agg, uint64) {
	t.Helper()
	const base = 1 << 20
	a, insns := emitted(f, value.AggParams{})
	m := &bpfVM{mem: map[uint64]uint64{}, beforeCmpXchg: interrupt}
	for _, v := range vs {
		m.r[asm.R1] = uint64(v)
		m.r[asm.R5] = 1
		m.r[regTmp] = base
		if err := m.run(insns); err != nil {
			t.Fatalf("%v(%d): %v", f, v, err)
		}
	}
	return m, a, base
}

// extremeOf decodes the extreme as the consumer does.
func extremeOf(m *bpfVM, a *plan.Agg, base uint64) int64 {
	return int64(m.mem[base+uint64(a.Off(plan.WordExtreme))] ^ plan.ExtremeMask(a.Func))
}

// TestExtremes: min() and max() over runs of values near the ends of
// int64 and 0, decoded as the consumer decodes them.
func TestExtremes(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	vs := testValues(r)
	for _, f := range []value.AggFunc{value.Min, value.Max} {
		for i := range vs {
			for _, run := range [][]int64{vs[i : i+1], vs[:i+1], vs[i:]} {
				want := run[0]
				for _, v := range run {
					if f == value.Min && v < want || f == value.Max && v > want {
						want = v
					}
				}
				m, a, base := extremeVM(t, f, run, nil)
				if got := extremeOf(m, a, base); got != want {
					t.Fatalf("%v over %d values from %d: %d, want %d", f, len(run), run[0], got, want)
				}
				if n := m.mem[base+uint64(a.Off(plan.WordCount))]; n != uint64(len(run)) {
					t.Fatalf("%v over %d values: count %d", f, len(run), n)
				}
				if m.calls != 0 {
					t.Fatalf("%v: %d helper calls without interruption", f, m.calls)
				}
			}
		}
	}
}

// TestExtremeInterrupted: a program interrupting max() between its load
// and its compare-and-exchange stores another value. A more extreme one
// stays; a less extreme one is replaced on the next try; a word changed
// before every try counts an aggregation drop (the stats map's helper
// call) after extremeTries tries.
func TestExtremeInterrupted(t *testing.T) {
	mask := plan.ExtremeMask(value.Max)
	set := func(v int64) func(*bpfVM, uint64) {
		done := false
		return func(m *bpfVM, addr uint64) {
			if !done {
				m.mem[addr], done = uint64(v)^mask, true
			}
		}
	}
	for _, c := range []struct {
		what      string
		nested    int64
		want      int64
		tries     int
		wantCalls int
	}{
		{"more extreme", 100, 100, 1, 0},
		{"less extreme", 5, 10, 2, 0},
		{"the same", 10, 10, 1, 0},
	} {
		tries := 0
		nested := set(c.nested)
		m, a, base := extremeVM(t, value.Max, []int64{10}, func(m *bpfVM, addr uint64) { tries++; nested(m, addr) })
		if got := extremeOf(m, a, base); got != c.want || tries != c.tries || m.calls != c.wantCalls {
			t.Errorf("interrupted by %s (%d): max %d after %d tries, %d calls; want %d after %d, %d", c.what, c.nested, got, tries, m.calls, c.want, c.tries, c.wantCalls)
		}
	}
	// every try finds another, less extreme value
	tries := 0
	m, a, base := extremeVM(t, value.Max, []int64{1000}, func(m *bpfVM, addr uint64) {
		tries++
		m.mem[addr] = uint64(int64(tries)) ^ mask
	})
	if got := extremeOf(m, a, base); tries != extremeTries || m.calls != 1 || got != extremeTries {
		t.Errorf("interrupted at every try: %d tries, %d helper calls, max %d; want %d tries, 1 call (the drop), max %d", tries, m.calls, got, extremeTries, extremeTries)
	}
	if n := m.mem[base+uint64(a.Off(plan.WordCount))]; n != 1 {
		t.Errorf("interrupted at every try: count %d, want 1", n)
	}
}
