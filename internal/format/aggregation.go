package format

// Printing of aggregations: printa() with and without a format, and the
// default printing at exit. Rows are dt_print_aggs and dt_print_datum in
// libdtrace/common/dt_consume.c; their order is dt_aggregate.c's.

import (
	"io"

	"github.com/sonde-trace/sonde/internal/value"
)

// AggOpts are the options that change how aggregations print.
type AggOpts struct {
	SortKey    bool // aggsortkey: sort by key, not by value
	SortRev    bool // aggsortrev: reverse every comparison
	SortPos    int  // aggsortpos: in a joined printa(), the aggregation whose value sorts first
	SortKeyPos int  // aggsortkeypos: the key that sorts first
	// Names names the integer keys printa's %a and %A print; nil prints
	// numbers.
	Names value.Namer
}

// entry is one row of one aggregation, or a zero-filled stand-in.
type entry struct {
	agg *value.Aggregation
	row *value.AggRow
}

// normalOf is the aggregation's normalization as DTrace's uint64_t
// dtada_normal: 1 when none.
func normalOf(a *value.Aggregation) uint64 {
	if a.Normal == 0 || a.Normal == 1 {
		return 1
	}
	return uint64(a.Normal)
}

// PrintAll prints the aggregations at exit, as dtrace(1) does when tracing
// stops: a newline (printed even when quiet and even with no aggregation,
// dtrace.c's oprintf("\n") before dtrace_aggregate_print), then the rows of
// every aggregation sorted together, by aggregation ID and then as
// aggsort* says (dtrace_aggregate_walk_sorted), each laid out by
// dt_print_aggs. Aggregations are not labelled. Pass only the aggregations
// that printa() has not printed (DTrace's DTRACE_AGD_PRINTED).
func PrintAll(w io.Writer, aggs []*value.Aggregation, o AggOpts) error {
	b := []byte{'\n'}
	var es []entry
	for _, a := range aggs {
		for i := range a.Rows {
			es = append(es, entry{a, &a.Rows[i]})
		}
	}
	sortEntries(es, o)
	var err error
	for _, e := range es {
		if b, err = appendRow(b, e.row.Keys, []entry{e}); err != nil {
			return err
		}
	}
	_, err = w.Write(b)
	return err
}

// PrintAggregation prints one aggregation as printa(@a) with no format
// does: a newline, then its rows (dt_consume_cpu's nofmt printa path).
func PrintAggregation(w io.Writer, a *value.Aggregation, o AggOpts) error {
	return Printa(w, nil, []*value.Aggregation{a}, o)
}

// Printa prints printa(format, @a, @b, ...). With a nil format it is
// printa(@a, ...) without a format: a newline, then the default layout.
//
// With one aggregation the rows come in aggsort* order; each is formatted
// as printf(format, keys...) where %@ takes the aggregation's value. With
// several, rows are joined on equal keys (dtrace_aggregate_walk_joined):
// an aggregation with no row for a key contributes a zero value; rows sort
// by the values of the aggregations in turn, starting with the one aggsortpos
// names, and then by key. The n-th %@ takes the n-th aggregation; extra
// %@ repeat the last.
func Printa(w io.Writer, p *Printf, aggs []*value.Aggregation, o AggOpts) error {
	var b []byte
	if p == nil {
		b = append(b, '\n')
	}
	rows := joinRows(aggs, o)
	var err error
	for _, r := range rows {
		if p == nil {
			b, err = appendRow(b, r.keys, r.vals)
		} else {
			src := &source{args: r.keys, names: o.Names}
			for _, e := range r.vals {
				src.aggs = append(src.aggs, datumOf(e))
			}
			b, err = p.render(b, src)
		}
		if err != nil {
			return err
		}
	}
	_, err = w.Write(b)
	return err
}

// joined is one printed row: the keys, and one entry per aggregation.
type joined struct {
	keys []value.Value
	vals []entry
}

// joinRows returns the rows printa() prints, in order.
func joinRows(aggs []*value.Aggregation, o AggOpts) []joined {
	if len(aggs) == 1 {
		a := aggs[0]
		es := make([]entry, len(a.Rows))
		for i := range a.Rows {
			es[i] = entry{a, &a.Rows[i]}
		}
		sortEntries(es, o)
		rows := make([]joined, len(es))
		for i, e := range es {
			rows[i] = joined{e.row.Keys, []entry{e}}
		}
		return rows
	}
	return joinBundles(aggs, o)
}

// joinBundles is dtrace_aggregate_walk_joined: group the rows of all the
// aggregations by key into bundles, then sort the bundles
// (dt_aggregate_bundlecmp).
func joinBundles(aggs []*value.Aggregation, o AggOpts) []joined {
	n := len(aggs)
	if n == 0 {
		return nil
	}
	pos := o.SortPos
	if pos < 0 || pos >= n {
		pos = 0
	}
	type bundle struct {
		rep  *value.AggRow // the representative key
		vals []entry       // by position in aggs
	}
	var bundles []*bundle
	// The representative key of a bundle is that of the aggregation with
	// the lowest ID that has it (the walk groups rows sorted by key, then
	// by ID: dt_aggregate_keyvarcmp).
	byID := append([]*value.Aggregation(nil), aggs...)
	sortStable(len(byID), func(i, j int) bool { return byID[i].ID < byID[j].ID },
		func(i, j int) { byID[i], byID[j] = byID[j], byID[i] })
	seen := map[*value.Aggregation]bool{}
	keyOnly := sorter{}
	for _, a := range byID {
		if seen[a] {
			continue // the same aggregation twice shares its values
		}
		seen[a] = true
	rows:
		for i := range a.Rows {
			r := &a.Rows[i]
			for _, bd := range bundles {
				if keyOnly.keycmp(bd.rep.Keys, r.Keys) == 0 {
					for j, x := range aggs {
						if x == a {
							bd.vals[j] = entry{a, r}
						}
					}
					continue rows
				}
			}
			bd := &bundle{rep: r, vals: make([]entry, n)}
			for j, x := range aggs {
				if x == a {
					bd.vals[j] = entry{a, r}
				}
			}
			bundles = append(bundles, bd)
		}
	}
	for _, bd := range bundles {
		for j, e := range bd.vals {
			if e.row == nil {
				bd.vals[j] = entry{aggs[j], &value.AggRow{Keys: bd.rep.Keys}}
			}
		}
	}
	s := newSorter(o)
	sortStable(len(bundles), func(i, j int) bool {
		l, r := bundles[i], bundles[j]
		if s.o.SortKey {
			if c := s.keycmp(l.rep.Keys, r.rep.Keys); c != 0 {
				return c < 0
			}
		}
		for k := 0; k < n; k++ {
			x := (k + pos) % n
			if c := s.valcmp(l.vals[x], r.vals[x]); c != 0 {
				return c < 0
			}
		}
		if s.o.SortKey {
			return false
		}
		return s.keycmp(l.rep.Keys, r.rep.Keys) < 0
	}, func(i, j int) { bundles[i], bundles[j] = bundles[j], bundles[i] })
	rows := make([]joined, len(bundles))
	for i, bd := range bundles {
		rows[i] = joined{bd.rep.Keys, bd.vals}
	}
	return rows
}

// datumOf is the %@ operand of an entry.
func datumOf(e entry) aggDatum {
	return aggDatum{fn: e.agg.Func, params: e.agg.Params, val: e.row.Val, normal: normalOf(e.agg)}
}

// appendRow is dt_print_aggs: each key as dt_print_datum lays it out, each
// aggregation's value, then a newline.
func appendRow(b []byte, keys []value.Value, vals []entry) ([]byte, error) {
	for _, k := range keys {
		b = appendKey(b, k)
	}
	var err error
	for _, e := range vals {
		if b, err = appendValue(b, e.agg, e.row.Val); err != nil {
			return b, err
		}
	}
	return append(b, '\n'), nil
}

// appendKey is dt_print_datum for a key: stacks on their own lines,
// symbols as "  %-50s", integers as " %*d" with a width by size (3, 5, 8,
// 16; records of 1 and 2 bytes print unsigned, tst.signedkeys.d.out) and
// strings as dt_print_bytes with width -50 ("  %-50s").
func appendKey(b []byte, k value.Value) []byte {
	switch k.Kind {
	case value.Stack, value.UStack:
		return appendStack(b, k.Frames, StackIndent, noSpec)
	case value.Sym, value.USym, value.Mod, value.UMod, value.UAddr:
		return appendSym(b, k)
	case value.String:
		return appendBytes(b, stringRecord(k), -50, false, false)
	case value.Bytes:
		return appendBytes(b, k.Raw, -50, false, false)
	}
	b = append(b, ' ')
	switch k.Size {
	case 1:
		return fmtInt(b, cspec{width: 3, prec: -1}, 'd', zeroExtend(k), false)
	case 2:
		return fmtInt(b, cspec{width: 5, prec: -1}, 'd', zeroExtend(k), false)
	case 4:
		return fmtInt(b, cspec{width: 8, prec: -1}, 'd', zeroExtend(k), false)
	}
	return fmtInt(b, cspec{width: 16, prec: -1}, 'd', uint64(k.Int), true)
}

// appendValue is dt_print_datum for an aggregation's value: " %16lld" for
// count, sum, min, max and avg (integer division), " %16llu" for stddev,
// the plot for the quantizing functions.
func appendValue(b []byte, a *value.Aggregation, v value.AggValue) ([]byte, error) {
	normal := normalOf(a)
	w16 := cspec{width: 16, prec: -1}
	b = appendSpaceUnlessPlot(b, a.Func)
	switch a.Func {
	case value.Count:
		return fmtInt(b, w16, 'd', uint64(normalize(v.Count, normal)), true), nil
	case value.Sum:
		return fmtInt(b, w16, 'd', uint64(normalize(v.Sum, normal)), true), nil
	case value.Min:
		return fmtInt(b, w16, 'd', uint64(normalize(v.Min, normal)), true), nil
	case value.Max:
		return fmtInt(b, w16, 'd', uint64(normalize(v.Max, normal)), true), nil
	case value.Avg:
		// dt_print_average: data[1] / (int64_t)normal / data[0], signed.
		var r int64
		if v.Count != 0 {
			r = v.Sum / int64(normal) / v.Count
		}
		return fmtInt(b, w16, 'd', uint64(r), true), nil
	case value.Stddev:
		return fmtInt(b, w16, 'u', stddev(v, normal), true), nil
	}
	return appendPlot(b, a.Func, a.Params, v.Buckets, normal)
}

func appendSpaceUnlessPlot(b []byte, fn value.AggFunc) []byte {
	switch fn {
	case value.Quantize, value.Lquantize, value.Llquantize:
		return b
	}
	return append(b, ' ')
}
