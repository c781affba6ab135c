package agent

import (
	"sort"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/value"
)

// rowsOf turns one generation of a dataset's aggregation (what one
// second counted) into its rows: a count or a sum() as the value, a
// quantization's buckets with their ranges (scale). Keys that hold
// nothing are absent; keys that print the same are one row.
func rowsOf(a *value.Aggregation, fn value.AggFunc, scale func(int) (int64, int64)) []analytics.Row {
	var rows []analytics.Row
	for _, r := range a.Rows {
		key := make([]string, len(r.Keys))
		for i, k := range r.Keys {
			key[i] = format.KeyText(k)
		}
		row := analytics.Row{Key: key}
		switch fn {
		case value.Count:
			row.Value = r.Val.Count
		case value.Sum:
			row.Value = r.Val.Sum
		default:
			for i, n := range r.Val.Buckets {
				if n != 0 {
					lo, hi := scale(i)
					row.Buckets = append(row.Buckets, analytics.Bucket{Index: int32(i), Min: lo, Max: analytics.Bound(hi), Count: n})
					row.Value += n
				}
			}
		}
		if row.Value != 0 || len(row.Buckets) > 0 {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return merge(nil, rows)
}

func keyID(key []string) string { return strings.Join(key, "\x00") }

// sortRows orders rows by key, for output that does not depend on map
// order.
func sortRows(rows []analytics.Row) {
	sort.Slice(rows, func(i, j int) bool { return keyID(rows[i].Key) < keyID(rows[j].Key) })
}

// fold keeps at most limit rows: the limit-1 largest keys of the second,
// and the others summed into one row whose key is analytics.Other in
// every position. It returns how many keys were folded (0 if none).
func fold(rows []analytics.Row, limit int) ([]analytics.Row, int) {
	if limit <= 0 || len(rows) <= limit {
		return rows, 0
	}
	sorted := append([]analytics.Row(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Value != sorted[j].Value {
			return sorted[i].Value > sorted[j].Value
		}
		return keyID(sorted[i].Key) < keyID(sorted[j].Key)
	})
	keep := max(limit-1, 0)
	kept := sorted[:keep:keep]
	other := analytics.Row{Key: make([]string, len(sorted[keep].Key))}
	for i := range other.Key {
		other.Key[i] = analytics.Other
	}
	for _, r := range sorted[keep:] {
		other = add(other, r)
	}
	sortRows(kept)
	return append(kept, other), len(sorted) - keep
}

// add sums r into acc: values, and buckets range by range ([Min, Max)):
// a dataset whose scale changed within a second (exported, or no longer)
// has buckets of both scales, which share indexes but not ranges.
func add(acc, r analytics.Row) analytics.Row {
	acc.Value += r.Value
	if len(r.Buckets) == 0 {
		return acc
	}
	byRange := map[[2]int64]analytics.Bucket{}
	for _, b := range acc.Buckets {
		byRange[[2]int64{b.Min, int64(b.Max)}] = b
	}
	for _, b := range r.Buckets {
		k := [2]int64{b.Min, int64(b.Max)}
		if c, ok := byRange[k]; ok {
			c.Count += b.Count
			byRange[k] = c
		} else {
			byRange[k] = b
		}
	}
	acc.Buckets = acc.Buckets[:0:0]
	for _, b := range byRange {
		acc.Buckets = append(acc.Buckets, b)
	}
	sort.Slice(acc.Buckets, func(i, j int) bool {
		bi, bj := acc.Buckets[i], acc.Buckets[j]
		if bi.Min != bj.Min {
			return bi.Min < bj.Min
		}
		if bi.Max != bj.Max {
			return bi.Max < bj.Max
		}
		return bi.Index < bj.Index
	})
	return acc
}

// merge sums two sets of rows key by key.
func merge(a, b []analytics.Row) []analytics.Row {
	byKey := map[string]analytics.Row{}
	for _, rows := range [][]analytics.Row{a, b} {
		for _, r := range rows {
			id := keyID(r.Key)
			if acc, ok := byKey[id]; ok {
				byKey[id] = add(acc, r)
			} else {
				byKey[id] = add(analytics.Row{Key: r.Key}, r)
			}
		}
	}
	out := make([]analytics.Row, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, r)
	}
	sortRows(out)
	return out
}

// rollup sums seconds (in time order) into intervals of granularity g, as
// the store's coarser tiers do: counters and buckets summed, Samples the
// seconds each interval holds.
func rollup(secs []analytics.Second, g analytics.Granularity) []analytics.Second {
	w := g.Width()
	if w == time.Second {
		return secs
	}
	var out []analytics.Second
	for _, s := range secs {
		t := s.Time.Truncate(w)
		if n := len(out); n > 0 && out[n-1].Time.Equal(t) {
			out[n-1].Samples += s.Samples
			out[n-1].Rows = merge(out[n-1].Rows, s.Rows)
			continue
		}
		out = append(out, analytics.Second{Time: t, Samples: s.Samples, Rows: merge(nil, s.Rows)})
	}
	return out
}

// bytesOf estimates the memory a second takes.
func bytesOf(s analytics.Second) int64 {
	n := int64(64)
	for _, r := range s.Rows {
		n += 64 + int64(len(r.Buckets))*32
		for _, k := range r.Key {
			n += 16 + int64(len(k))
		}
	}
	return n
}
