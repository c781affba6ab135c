package consume

import (
	"encoding/binary"
	"io"
	"testing"

	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/runtime"
	"github.com/sonde-trace/sonde/internal/value"
)

// layout lays fields out one after another from off, 8-byte aligned, as
// the code generator does.
type layout struct{ off int }

func (l *layout) field(k plan.FieldKind, size int, signed bool) plan.Field {
	f := plan.Field{Kind: k, Offset: l.off, Size: size, Signed: signed}
	switch k {
	case plan.FKStack:
		f.Depth = (size - 8) / 8
	case plan.FUStack:
		f.Depth = (size - 16) / 8
	}
	l.off += (size + 7) / 8 * 8
	return f
}

func (l *layout) sym(k plan.FieldKind, size int, sk value.Kind) plan.Field {
	f := l.field(k, size, false)
	f.SymKind = sk
	return f
}

// allFields returns one field of every kind and size, laid out from off.
func allFields(l *layout) []plan.Field {
	return []plan.Field{
		l.field(plan.FInt, 1, true), l.field(plan.FInt, 1, false),
		l.field(plan.FInt, 2, true), l.field(plan.FInt, 2, false),
		l.field(plan.FInt, 4, true), l.field(plan.FInt, 4, false),
		l.field(plan.FInt, 8, true), l.field(plan.FInt, 8, false),
		l.field(plan.FString, 16, false), l.field(plan.FString, 256, false),
		l.field(plan.FProbeProv, 4, false), l.field(plan.FProbeMod, 4, false),
		l.field(plan.FProbeFunc, 4, false), l.field(plan.FProbeName, 4, false),
		l.field(plan.FKStack, 8+8*4, false), l.field(plan.FUStack, 16+8*4, false),
		l.sym(plan.FSym, 8, value.Sym), l.sym(plan.FSym, 8, value.Mod),
		l.sym(plan.FUSym, 16, value.USym), l.sym(plan.FUSym, 16, value.UMod), l.sym(plan.FUSym, 16, value.UAddr),
		l.field(plan.FBytes, 13, false),
	}
}

// testPlan is a synthetic plan whose records hold every field kind and
// every action but system() (which would run the fuzzer's bytes as a
// command), and whose aggregations use every function.
func testPlan() *plan.Plan {
	p := &plan.Plan{Sites: []plan.Site{{Action: 0}, {Action: 2}}}
	rec := func(build func(l *layout) []plan.Action) {
		l := &layout{off: plan.HdrSize}
		r := &plan.Record{EPID: uint32(len(p.Records) + 1), Clause: len(p.Records), Actions: build(l)}
		r.Size = l.off
		p.Records = append(p.Records, r)
	}
	one := func(k plan.ActionKind, fs ...plan.Field) plan.Action { return plan.Action{Kind: k, Fields: fs} }
	printf := func(f string, fs ...plan.Field) plan.Action {
		return plan.Action{Kind: plan.ActPrintf, Format: f, Fields: fs}
	}
	// 1: trace() of every kind of field.
	rec(func(l *layout) []plan.Action {
		var as []plan.Action
		for _, f := range allFields(l) {
			as = append(as, one(plan.ActTrace, f))
		}
		return as
	})
	// 2: printf() with every kind of conversion.
	rec(func(l *layout) []plan.Action {
		i8, u4, s2, c1 := l.field(plan.FInt, 8, true), l.field(plan.FInt, 4, false), l.field(plan.FInt, 2, true), l.field(plan.FInt, 1, true)
		s, pf := l.field(plan.FString, 32, false), l.field(plan.FProbeFunc, 4, false)
		w, prec := l.field(plan.FInt, 4, true), l.field(plan.FInt, 4, true)
		ks, us := l.field(plan.FKStack, 8+8*3, false), l.field(plan.FUStack, 16+8*3, false)
		sym, usym := l.sym(plan.FSym, 8, value.Sym), l.sym(plan.FUSym, 16, value.USym)
		return []plan.Action{
			printf("%d %i %u %o %x %X %c|%hhd %hd %lld %llu\n", i8, i8, u4, u4, s2, s2, c1, c1, s2, i8, i8),
			printf("%s|%-10s|%5.2s|%S|%s\n", s, s, s, s, pf),
			printf("%*d|%-*s|%.*d|%*.*x\n", w, i8, w, s, prec, i8, w, prec, u4),
			printf("%p %a %A %Y %T %%\n", i8, sym, usym, i8, i8),
			printf("%k%k\n", ks, us),
		}
	})
	// 3: aggregation actions.
	rec(func(l *layout) []plan.Action {
		n := l.field(plan.FInt, 8, true)
		return []plan.Action{
			{Kind: plan.ActPrinta, Aggs: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
			{Kind: plan.ActPrinta, Format: "%@d\n", Aggs: []int{0}},
			{Kind: plan.ActPrinta, Format: "%d %@d %@d\n", Aggs: []int{1, 2}},
			{Kind: plan.ActClear, Aggs: []int{0}},
			{Kind: plan.ActTrunc, Aggs: []int{1}, Fields: []plan.Field{n}},
			{Kind: plan.ActTrunc, Aggs: []int{2}},
			{Kind: plan.ActNormalize, Aggs: []int{3}, Fields: []plan.Field{n}},
			{Kind: plan.ActDenormalize, Aggs: []int{3}},
			{Kind: plan.ActSetopt, Str: []string{"aggsortkey"}},
			{Kind: plan.ActSetopt, Str: []string{"aggsortrev"}},
		}
	})
	// 4, 5: speculation.
	rec(func(l *layout) []plan.Action {
		return []plan.Action{one(plan.ActSpeculate, l.field(plan.FInt, 8, true)), one(plan.ActTrace, l.field(plan.FString, 16, false))}
	})
	rec(func(l *layout) []plan.Action {
		return []plan.Action{one(plan.ActCommit, l.field(plan.FInt, 8, true)), one(plan.ActDiscard, l.field(plan.FInt, 8, true))}
	})
	// 6: stacks, tracemem, raise, stop.
	rec(func(l *layout) []plan.Action {
		return []plan.Action{
			one(plan.ActStack, l.field(plan.FKStack, 8+8*20, false)),
			one(plan.ActStack, l.field(plan.FUStack, 16+8*20, false)),
			one(plan.ActTracemem, l.field(plan.FBytes, 64, false)),
			one(plan.ActRaise, l.field(plan.FInt, 8, true)),
			one(plan.ActStop),
		}
	})
	// 7: actions under if/else, then exit.
	rec(func(l *layout) []plan.Action {
		a := one(plan.ActTrace, l.field(plan.FInt, 4, true))
		a.Cond, a.Bit = true, 0
		b := printf("%s\n", l.field(plan.FString, 8, false))
		b.Cond, b.Bit = true, 1
		c := one(plan.ActExit, l.field(plan.FInt, 8, true))
		c.Cond, c.Bit = true, 2
		return []plan.Action{a, b, c, one(plan.ActTrace, l.field(plan.FInt, 8, true))}
	})
	// 8: an empty clause; 9: quiet.
	rec(func(l *layout) []plan.Action { return []plan.Action{{Kind: plan.ActDefault}} })
	rec(func(l *layout) []plan.Action { return []plan.Action{{Kind: plan.ActSetopt, Str: []string{"quiet"}}} })

	agg := func(f value.AggFunc, params value.AggParams, keys func(l *layout) []plan.Field) {
		l := &layout{}
		a := &plan.Agg{ID: len(p.Aggs), Name: f.String(), Func: f, Params: params, Keys: keys(l), KeySize: max(l.off, 8)}
		a.Map = "agg"
		a.SizeValue(value.AggBuckets(f, params))
		p.Aggs = append(p.Aggs, a)
	}
	none := func(*layout) []plan.Field { return nil }
	agg(value.Count, value.AggParams{}, none)
	agg(value.Sum, value.AggParams{}, func(l *layout) []plan.Field { return []plan.Field{l.field(plan.FInt, 8, true)} })
	agg(value.Avg, value.AggParams{}, func(l *layout) []plan.Field { return []plan.Field{l.field(plan.FString, 16, false)} })
	agg(value.Min, value.AggParams{}, func(l *layout) []plan.Field { return []plan.Field{l.field(plan.FKStack, 8+8*3, false)} })
	agg(value.Max, value.AggParams{}, func(l *layout) []plan.Field { return []plan.Field{l.field(plan.FUStack, 16+8*3, false)} })
	agg(value.Stddev, value.AggParams{}, func(l *layout) []plan.Field { return []plan.Field{l.sym(plan.FSym, 8, value.Sym)} })
	agg(value.Quantize, value.AggParams{}, func(l *layout) []plan.Field { return []plan.Field{l.sym(plan.FUSym, 16, value.UAddr)} })
	agg(value.Lquantize, value.AggParams{Base: -10, Limit: 100, Step: 7}, func(l *layout) []plan.Field {
		return []plan.Field{l.field(plan.FProbeFunc, 4, false), l.field(plan.FInt, 2, false)}
	})
	agg(value.Llquantize, value.AggParams{Factor: 10, Low: 0, High: 4, Steps: 20}, func(l *layout) []plan.Field {
		return []plan.Field{l.sym(plan.FSym, 8, value.Mod), l.field(plan.FString, 8, false), l.field(plan.FBytes, 5, false)}
	})
	return p
}

// testConsumer consumes p without a kernel: no maps, so aggregation
// snapshots are empty.
func testConsumer(p *plan.Plan, sink value.Sink) *Consumer {
	c := &Consumer{p: p, s: &runtime.Session{Plan: p}, opts: Options{Sink: sink, SystemOut: io.Discard}, syms: shared,
		printf: map[string]*format.Printf{}, normal: map[int]int64{},
		spec: map[int64][]*value.Firing{}, printed: map[int]bool{}}
	for id := uint32(1); id < 16; id += 2 {
		c.AddProbes([]*probe.Probe{{ID: id, Provider: "syscall", Function: "read", Name: "entry"}})
	}
	return c
}

// record makes a record of EPID epid filled with b (repeated) after its
// header, as a seed.
func record(p *plan.Plan, epid uint32, fill []byte, mask uint64) []byte {
	size := plan.HdrSize
	if epid >= 1 && int(epid) <= len(p.Records) {
		size = p.Records[epid-1].Size
	}
	rec := make([]byte, size)
	for i := plan.HdrSize; i < size && len(fill) > 0; i++ {
		rec[i] = fill[i%len(fill)]
	}
	binary.LittleEndian.PutUint32(rec[plan.HdrEPID:], epid)
	binary.LittleEndian.PutUint32(rec[plan.HdrProbe:], 7)
	binary.LittleEndian.PutUint32(rec[plan.HdrCPU:], 1)
	binary.LittleEndian.PutUint64(rec[plan.HdrMask:], mask)
	return rec
}

// FuzzDecode feeds arbitrary bytes to the consumer as a ring buffer record
// (short ones, ones whose EPID, sizes, counts and probe IDs lie) and as an
// aggregation entry of every aggregation (a key and per-CPU values of the
// sizes the kernel returns, holding anything), and prints what results,
// in text and JSON. Nothing may panic.
func FuzzDecode(f *testing.F) {
	p := testPlan()
	for epid := uint32(0); epid <= uint32(len(p.Records))+1; epid++ {
		f.Add(record(p, epid, nil, 0))
		f.Add(record(p, epid, []byte("abc\x00\x01\x02\x80\xff"), 7))
		f.Add(record(p, epid, []byte{0xff}, ^uint64(0)))
	}
	errRec := make([]byte, plan.ErrRecSize)
	binary.LittleEndian.PutUint32(errRec[plan.HdrEPID:], plan.ErrorEPID)
	binary.LittleEndian.PutUint32(errRec[plan.ErrFault:], plan.FaultBadAddr)
	binary.LittleEndian.PutUint32(errRec[plan.ErrSite:], 1)
	f.Add(errRec)
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		text := func(quiet bool) format.Text { return format.Text{Out: io.Discard, Warn: io.Discard, Quiet: quiet} }
		for _, sink := range []value.Sink{&format.Text{Out: io.Discard, Warn: io.Discard}, &format.Folded{Text: text(true)},
			&format.JSON{Text: text(false)}} {
			c := testConsumer(p, sink)
			c.handle(b)
			c.handle(b) // again, with the state the first left (speculations, options)
			c.Final()
		}
		c := testConsumer(p, &format.Text{Out: io.Discard, Warn: io.Discard})
		for _, a := range p.Aggs {
			aggEntry(t, c, a, b)
		}
	})
}

// aggEntry decodes b as an entry of aggregation a and prints it.
func aggEntry(t *testing.T, c *Consumer, a *plan.Agg, b []byte) {
	key := make([]byte, a.KeySize)
	n := copy(key, b)
	b = b[n:]
	var per [][]byte
	for cpu := 0; cpu < 3; cpu++ {
		v := make([]byte, a.ValSize)
		n := copy(v, b)
		b = b[n:]
		per = append(per, v)
	}
	v, ok := merge(a, per)
	if !ok {
		return
	}
	if a.Buckets > 0 && len(v.Buckets) != a.Buckets {
		t.Fatalf("@%s: %d buckets, want %d", a.Name, len(v.Buckets), a.Buckets)
	}
	var keys []value.Value
	for _, f := range a.Keys {
		keys = append(keys, c.decode(f, key, f.Offset))
	}
	rows := []value.AggRow{{Keys: keys, Val: v}, {Keys: keys, Val: v}}
	if hasSymKey(a) {
		rows = mergeRows(a, rows)
	}
	for _, normal := range []int64{0, 1000, -1} {
		ag := &value.Aggregation{Name: a.Name, ID: a.ID, Func: a.Func, Params: a.Params, Normal: normal, Rows: rows}
		_ = format.PrintAggregation(io.Discard, ag, format.AggOpts{})
		_ = format.JSONAggregation(io.Discard, ag, format.AggOpts{SortKey: true})
		_ = format.PrintAll(io.Discard, []*value.Aggregation{ag, ag}, format.AggOpts{SortRev: true})
		if pf, err := format.ParsePrintf("%s %d %@d\n"); err == nil {
			_ = format.Printa(io.Discard, pf, []*value.Aggregation{ag}, format.AggOpts{})
		}
	}
}
