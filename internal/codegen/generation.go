package codegen

// Aggregation generations (Options.AggGenerations), for a reader that
// takes each interval's events whole instead of differencing cumulative
// counts (sonded): every aggregation has two maps, each holding one
// generation, and a one-word array (plan.MapGenerations) says which one
// is current. At each interval's boundary the reader flips the word —
// one store, so that the boundary is when the reader says, however busy
// the machine — then waits until no program can still be using the
// other generation: an update of an outer map (BPF_MAP_TYPE_ARRAY_OF_MAPS,
// which also holds the two generations for the runtime) returns only once
// every running non-sleepable program has finished (kernel/bpf/syscall.c,
// maybe_wait_bpf_programs: an RCU grace period), and a program that
// starts after the flip sees it (RCU orders the flip before every
// read-side section that begins after the wait begins). The generation
// swapped out then holds exactly the interval's events: none still on
// their way into it, none counted in the next. It is read whole, emptied,
// and current again at the next flip.
//
// The code is sonde -n's, and the generation is chosen by a branch, not
// through the outer map: once the key is built, the update reads the
// generation word once and jumps to a copy of the lookup, insertion and
// second lookup naming the other map when it is not 0. Each copy names
// one map as an immediate, as sonde -n's does, so that the verifier
// inlines its lookups, the JIT loads the map as a constant and the call
// depends on no load; an event lands in one generation, whole. In
// generation 0 the program runs sonde -n's instructions plus the three
// of the choice (the word's address, its load, the branch not taken); in
// generation 1 the branch is taken to the copy, laid out between the
// drop count and the update of the value, off sonde -n's path:
//
//	r1 = &gens[0]; r0 = *(u32 *)r1; if r0 != 0 goto gen1   // the choice
//	lookup(agg.0, key) ... update(agg.0 ...) ... lookup(agg.0, key)  // sonde -n's
//	drops++; goto done
//	gen1: lookup(agg.1, key) ... ; goto have, or back to drops++
//	have: ... the value updated, as sonde -n does

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/plan"
)

// GenerationMap names the outer map that, under Options.AggGenerations,
// holds the two generations of the aggregation map named agg. The runtime
// creates them from the outer map's InnerMap spec and keeps the one
// swapped out last readable under agg's own name.
func GenerationMap(agg string) string { return agg + "_gen" }

// generationSpec wraps an aggregation's map spec in its outer map when
// aggregations have generations.
func (g *gen) generationSpec(inner *ebpf.MapSpec) *ebpf.MapSpec {
	if !g.opts.AggGenerations {
		return inner
	}
	return &ebpf.MapSpec{Name: GenerationMap(inner.Name), Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4,
		MaxEntries: 2, InnerMap: inner}
}

// generationIndexSpecs is the map of the current slot, when aggregations
// have generations.
func (g *gen) generationIndexSpecs() []*ebpf.MapSpec {
	if !g.opts.AggGenerations || len(g.p.Aggs) == 0 {
		return nil
	}
	return []*ebpf.MapSpec{{Name: plan.MapGenerations, Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1}}
}

// aggLookup emits the lookup of a's value for the key at rS+key, as the
// update of an aggregation does: the value's address in R0 and a jump to
// have, or the drop counted and a jump to done. keyed: a missing key is
// inserted (zeroed) and looked up again. Under generations, the
// generation is chosen once, by a branch to a copy naming the other map.
func (g *gen) aggLookup(a *plan.Agg, key int, keyed bool, have, done string) {
	seq := func(m string) asm.Instructions {
		lookup := asm.Instructions{
			asm.LoadMapPtr(asm.R1, 0).WithReference(m),
			asm.Mov.Reg(asm.R2, rS),
			asm.Add.Imm(asm.R2, int32(key)),
			asm.FnMapLookupElem.Call(),
			asm.JNE.Imm(asm.R0, 0, have),
		}
		out := append(asm.Instructions(nil), lookup...)
		if keyed {
			out = append(out,
				asm.LoadMapPtr(asm.R1, 0).WithReference(m),
				asm.Mov.Reg(asm.R2, rS),
				asm.Add.Imm(asm.R2, int32(key)),
				asm.Mov.Reg(asm.R3, rS),
				asm.Add.Imm(asm.R3, int32(g.zeroBase)),
				asm.Mov.Imm(asm.R4, 1), // BPF_NOEXIST
				asm.FnMapUpdateElem.Call(),
			)
			out = append(out, lookup...)
		}
		return out
	}
	if !g.opts.AggGenerations {
		g.emit(seq(a.Map)...)
		g.stat(plan.StatAggDrops)
		g.emit(asm.Ja.Label(done))
		return
	}
	gen1, drop := g.label("gen1"), g.label("agg_drop")
	g.emit(
		asm.LoadMapValue(asm.R1, 0, 0).WithReference(plan.MapGenerations),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.Word),
		asm.JNE.Imm(asm.R0, 0, gen1),
	)
	g.emit(seq(plan.GenerationSlot(a.Map, 0))...)
	n := len(g.insns)
	g.stat(plan.StatAggDrops)
	g.insns[n] = g.insns[n].WithSymbol(drop)
	g.emit(asm.Ja.Label(done))
	s1 := seq(plan.GenerationSlot(a.Map, 1))
	s1[0] = s1[0].WithSymbol(gen1)
	g.emit(s1...)
	g.emit(asm.Ja.Label(drop))
}
