package format

// The order of aggregation rows: dt_aggregate.c. By default rows sort by
// aggregation variable ID, then by value, then by key
// (dt_aggregate_varvalcmp); aggsortkey sorts by ID then key
// (dt_aggregate_varkeycmp); aggsortrev reverses every comparison, the ID's
// included (DT_LESSTHAN and DT_GREATERTHAN flip); aggsortkeypos rotates the
// keys so that the given one compares first.

import (
	"bytes"
	"encoding/binary"
	"sort"

	"github.com/sonde-trace/sonde/internal/value"
)

type sorter struct {
	o AggOpts
}

func newSorter(o AggOpts) sorter { return sorter{o: o} }

// less and greater are DT_LESSTHAN and DT_GREATERTHAN.
func (s sorter) less() int {
	if s.o.SortRev {
		return 1
	}
	return -1
}

func (s sorter) greater() int { return -s.less() }

func (s sorter) cmpInt(l, r int64) int {
	switch {
	case l < r:
		return s.less()
	case l > r:
		return s.greater()
	}
	return 0
}

func (s sorter) cmpUint(l, r uint64) int {
	switch {
	case l < r:
		return s.less()
	case l > r:
		return s.greater()
	}
	return 0
}

func (s sorter) cmpLD(l, r ld) int {
	switch l.cmp(r) {
	case -1:
		return s.less()
	case 1:
		return s.greater()
	}
	return 0
}

// sortEntries sorts rows as dtrace_aggregate_walk_sorted does.
func sortEntries(es []entry, o AggOpts) {
	s := newSorter(o)
	sortStable(len(es), func(i, j int) bool {
		l, r := es[i], es[j]
		if c := s.cmpInt(int64(l.agg.ID), int64(r.agg.ID)); c != 0 {
			return c < 0
		}
		if !o.SortKey {
			if c := s.valcmp(l, r); c != 0 {
				return c < 0
			}
		}
		return s.keycmp(l.row.Keys, r.row.Keys) < 0
	}, func(i, j int) { es[i], es[j] = es[j], es[i] })
}

// sortStable sorts n items with the given less and swap functions.
func sortStable(n int, less func(i, j int) bool, swap func(i, j int)) {
	sort.Stable(funcSorter{n, less, swap})
}

type funcSorter struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (f funcSorter) Len() int           { return f.n }
func (f funcSorter) Less(i, j int) bool { return f.less(i, j) }
func (f funcSorter) Swap(i, j int)      { f.swap(i, j) }

// keycmp is dt_aggregate_keycmp: rows with fewer keys first, then key by
// key from aggsortkeypos on (wrapping round): smaller records first, then
// integers unsigned by value, other records byte by byte.
func (s sorter) keycmp(l, r []value.Value) int {
	if c := s.cmpInt(int64(len(l)), int64(len(r))); c != 0 {
		return c
	}
	n := len(l)
	pos := s.o.SortKeyPos
	if pos < 0 || pos >= n {
		pos = 0
	}
	for i := 0; i < n; i++ {
		k := (i + pos) % n
		if c := s.cmpKey(l[k], r[k]); c != 0 {
			return c
		}
	}
	return 0
}

// recordSize is the size of the record DTrace keeps for a key, where it
// matters for sorting: integers by their size, the rest by kind (records of
// one key position all have one size in DTrace: strsize, the stack depth).
func recordSize(v value.Value) int64 {
	switch v.Kind {
	case value.Int:
		if v.Size == 1 || v.Size == 2 || v.Size == 4 {
			return int64(v.Size)
		}
		return 8
	case value.Sym, value.Mod:
		return 8
	case value.USym, value.UMod, value.UAddr:
		return 16
	}
	return 1 << 20 // strings, stacks, bytes: larger than any integer
}

func (s sorter) cmpKey(l, r value.Value) int {
	if c := s.cmpInt(recordSize(l), recordSize(r)); c != 0 {
		return c
	}
	switch l.Kind {
	case value.Int:
		return s.cmpUint(zeroExtend(l), zeroExtend(r))
	case value.Sym, value.Mod, value.USym, value.UMod, value.UAddr:
		// DTrace compares the address (with the pid first for user
		// addresses, which sonde does not keep).
		return s.cmpUint(l.Addr, r.Addr)
	case value.Stack, value.UStack:
		if len(l.PCs) > 0 || len(r.PCs) > 0 {
			return s.cmpBytes(pcBytes(l.PCs, len(r.PCs)), pcBytes(r.PCs, len(l.PCs)))
		}
		for i := 0; i < len(l.Frames) && i < len(r.Frames); i++ {
			if c := s.cmpBytes([]byte(l.Frames[i]), []byte(r.Frames[i])); c != 0 {
				return c
			}
		}
		return s.cmpInt(int64(len(l.Frames)), int64(len(r.Frames)))
	case value.Bytes:
		return s.cmpBytes(l.Raw, r.Raw)
	}
	lb, rb := stringRecord(l), stringRecord(r)
	for len(lb) < len(rb) {
		lb = append(lb, 0)
	}
	for len(rb) < len(lb) {
		rb = append(rb, 0)
	}
	return s.cmpBytes(lb, rb)
}

func (s sorter) cmpBytes(l, r []byte) int {
	switch bytes.Compare(l, r) {
	case -1:
		return s.less()
	case 1:
		return s.greater()
	}
	return 0
}

// pcBytes lays out program counters as DTrace's stack record does: 8-byte
// little-endian words, zero-filled to the depth of the longer stack.
func pcBytes(pcs []uint64, other int) []byte {
	n := len(pcs)
	if other > n {
		n = other
	}
	b := make([]byte, 8*n)
	for i, pc := range pcs {
		binary.LittleEndian.PutUint64(b[8*i:], pc)
	}
	return b
}

// valcmp is dt_aggregate_valcmp for two entries of one aggregating
// function.
func (s sorter) valcmp(l, r entry) int {
	lv, rv := l.row.Val, r.row.Val
	switch l.agg.Func {
	case value.Count:
		return s.cmpInt(lv.Count, rv.Count)
	case value.Sum:
		return s.cmpInt(lv.Sum, rv.Sum)
	case value.Min:
		return s.cmpInt(lv.Min, rv.Min)
	case value.Max:
		return s.cmpInt(lv.Max, rv.Max)
	case value.Avg:
		return s.cmpInt(average(lv), average(rv))
	case value.Stddev:
		return s.cmpUint(stddev(lv, 1), stddev(rv, 1))
	case value.Quantize:
		if c := s.cmpLD(quantizeSum(lv.Buckets), quantizeSum(rv.Buckets)); c != 0 {
			return c
		}
		return s.cmpInt(bucket(lv.Buckets, value.QuantizeZero), bucket(rv.Buckets, value.QuantizeZero))
	case value.Lquantize:
		q, err := value.LquantizeOf(l.agg.Params)
		if err != nil {
			return 0
		}
		if c := s.cmpLD(lquantizeSum(q, lv.Buckets), lquantizeSum(q, rv.Buckets)); c != 0 {
			return c
		}
		return s.cmpInt(lquantizeZero(q, lv.Buckets), lquantizeZero(q, rv.Buckets))
	case value.Llquantize:
		q, err := value.LlquantizeOf(l.agg.Params)
		if err != nil {
			return 0
		}
		if c := s.cmpLD(llquantizeSum(q, lv.Buckets), llquantizeSum(q, rv.Buckets)); c != 0 {
			return c
		}
		return s.cmpInt(bucket(lv.Buckets, 0), bucket(rv.Buckets, 0))
	}
	return 0
}

// average is dt_aggregate_averagecmp's: sum / count, signed, 0 if empty.
func average(v value.AggValue) int64 {
	if v.Count == 0 {
		return 0
	}
	return v.Sum / v.Count
}

// quantizeSum is dt_aggregate_quantizedcmp's total: the sum over buckets
// of label times count, in long double.
func quantizeSum(data []int64) ld {
	t := ldZero()
	for i := 0; i < value.QuantizeBuckets; i++ {
		t = t.add(ldInt(value.QuantizeValue(i)).mul(ldInt(bucket(data, i))))
	}
	return t
}

// lquantizeSum is dt_aggregate_lquantizedsum: underflow counts weigh
// base-1, bucket k weighs base+k*step, overflow weighs base+levels*step+1.
func lquantizeSum(q value.LquantizeLayout, data []int64) ld {
	base := q.Base
	t := ldInt(bucket(data, 0)).mul(ldInt(int64(base - 1)))
	for i := 0; i < int(q.Levels); i++ {
		t = t.add(ldInt(bucket(data, i+1)).mul(ldInt(int64(base))))
		base += int32(q.Step)
	}
	return t.add(ldInt(bucket(data, int(q.Levels)+1)).mul(ldInt(int64(base + 1))))
}

// lquantizeZero is dt_aggregate_lquantizedzero: the count of the bucket
// holding zero, if any.
func lquantizeZero(q value.LquantizeLayout, data []int64) int64 {
	base := q.Base
	if base-1 == 0 {
		return bucket(data, 0)
	}
	for i := 0; i < int(q.Levels); i++ {
		if base == 0 {
			return bucket(data, i+1)
		}
		base += int32(q.Step)
	}
	if base+1 == 0 {
		return bucket(data, int(q.Levels)+1)
	}
	return 0
}

// llquantizeSum is dt_aggregate_llquantizedsum: each bucket's count times
// its lower bound, the first bucket's times factor^low - 1.
func llquantizeSum(q value.LlquantizeLayout, data []int64) ld {
	bounds := q.Bounds()
	t := ldInt(bucket(data, 0)).mul(ldInt(bounds[0] - 1))
	for i, b := range bounds {
		t = t.add(ldInt(bucket(data, i+1)).mul(ldInt(b)))
	}
	return t
}
