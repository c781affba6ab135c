package agent

import (
	"sort"
	"strings"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// A reading is one key's cumulative value in an aggregation, as read
// (summed over CPUs) at one instant: a count or sum, or a distribution's
// buckets.
type reading struct {
	Key     []string
	N       int64
	Buckets []int64
}

// differ turns successive cumulative readings of an aggregation into the
// rows of each interval between them: the exact number of events of each
// key since the last reading. Nothing is ever cleared under the writers,
// so an event is counted in exactly one interval, whichever side of a
// boundary it falls on.
type differ struct {
	// sum: N is a sum() of values, which may go down (negative values):
	// its difference is taken as it is. Otherwise N is a count, and a
	// count or bucket that went down was reset (clear()): what it holds
	// now is what happened since.
	sum  bool
	last map[string]reading
}

func keyID(key []string) string { return strings.Join(key, "\x00") }

// prime takes rs as the starting point: the next interval begins now.
func (d *differ) prime(rs []reading) { d.last = index(rs) }

// next returns the rows of the interval since the last reading, by key;
// keys that did not change are absent. A key that vanished (trunc())
// is forgotten; one that appears counted all it holds since the last
// reading.
func (d *differ) next(rs []reading) []analytics.Row {
	cur := index(rs)
	var out []analytics.Row
	for id, c := range cur {
		p, seen := d.last[id]
		if r, ok := d.delta(c, p, seen); ok {
			out = append(out, r)
		}
	}
	d.last = cur
	sortRows(out)
	return out
}

// index maps readings by key. A key read twice (an iteration that
// restarted) keeps its larger reading: cumulative counts only grow.
func index(rs []reading) map[string]reading {
	m := make(map[string]reading, len(rs))
	for _, r := range rs {
		id := keyID(r.Key)
		if p, ok := m[id]; ok && total(p) > total(r) {
			continue
		}
		m[id] = r
	}
	return m
}

func total(r reading) int64 {
	n := r.N
	for _, b := range r.Buckets {
		n += b
	}
	return n
}

// delta is one key's row for the interval, and whether it changed.
func (d *differ) delta(c, p reading, seen bool) (analytics.Row, bool) {
	row := analytics.Row{Key: c.Key}
	if c.Buckets == nil {
		switch {
		case !seen:
			row.Value = c.N
		case !d.sum && c.N < p.N:
			row.Value = c.N // reset
		default:
			row.Value = c.N - p.N
		}
		return row, row.Value != 0
	}
	reset := false
	if seen {
		for i, n := range c.Buckets {
			if n < bucket(p.Buckets, i) {
				reset = true
			}
		}
	}
	for i, n := range c.Buckets {
		if seen && !reset {
			n -= bucket(p.Buckets, i)
		}
		if n != 0 {
			row.Buckets = append(row.Buckets, analytics.Bucket{Index: int32(i), Count: n})
			row.Value += n
		}
	}
	return row, len(row.Buckets) > 0
}

func bucket(bs []int64, i int) int64 {
	if i < len(bs) {
		return bs[i]
	}
	return 0
}

// sortRows orders rows by key, for output that does not depend on map
// order.
func sortRows(rows []analytics.Row) {
	sort.Slice(rows, func(i, j int) bool { return keyID(rows[i].Key) < keyID(rows[j].Key) })
}
