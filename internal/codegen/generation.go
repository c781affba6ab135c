package codegen

// Aggregation generations (Options.AggGenerations), for a reader that
// takes each interval's events whole instead of differencing cumulative
// counts (sonded): every aggregation's map is reached through an outer
// map (BPF_MAP_TYPE_ARRAY_OF_MAPS) of two slots, each holding one
// generation, and a one-word array (plan.MapGenerations) says which slot
// is current. At each interval's boundary the reader flips the word —
// one store, so that the boundary is when the reader says, however busy
// the machine — then waits until no program can still be using the
// other slot: an update of an outer map returns only once every running
// non-sleepable program has finished (kernel/bpf/syscall.c,
// maybe_wait_bpf_programs: an RCU grace period), and a program that
// starts after the flip sees it (RCU orders the flip before every
// read-side section that begins after the wait begins). The generation
// swapped out then holds exactly the interval's events: none still on
// their way into it, none counted in the next. It is read whole, emptied,
// and current again at the next flip.
//
// An update fetches its generation once, before its arguments and key
// are computed (the fetch's loads are then done by the time the map is
// used, off the path the update waits on), and keeps it on the stack, so
// that its lookup, insertion and second lookup all go to the same map
// even when a flip happens between them: an event lands in one
// generation, whole. The outer lookup is inlined by the verifier (an
// array's element address); the inner lookups are those a direct map
// has.
//
//	slot = gens[0]; inner = lookup(outer, &slot)  // the current generation
//	if inner == NULL { drops++; goto done }       // never: the runtime fills both
//	... lookup(inner, key), update(inner, key, zero), lookup(inner, key)

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/plan"
)

// GenerationMap names the outer map through which, under
// Options.AggGenerations, the aggregation map named agg is reached. The
// runtime creates the two generations from the outer map's InnerMap spec
// and keeps the one swapped out last readable under agg's own name.
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

// aggGeneration emits the fetch of a's current generation into a stack
// slot, counting a drop and jumping to done if the outer slot is empty;
// it returns the slot, 0 when aggregations are direct. The caller frees
// it with endGeneration. It is called before the update's arguments and
// key are computed (fetched just before the lookup, the generation
// delayed every event by some ns).
func (g *gen) aggGeneration(a *plan.Agg, done string) int16 {
	if !g.opts.AggGenerations {
		return 0
	}
	g.stack += 8
	slot := int16(-g.stack)
	ok := g.label("gen_ok")
	g.emit(
		asm.LoadMapValue(asm.R1, 0, 0).WithReference(plan.MapGenerations),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.Word),
		asm.StoreMem(asm.R10, slot, asm.R0, asm.Word), // the outer key: the current slot
		asm.LoadMapPtr(asm.R1, 0).WithReference(GenerationMap(a.Map)),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, int32(slot)),
		asm.FnMapLookupElem.Call(),
		asm.JNE.Imm(asm.R0, 0, ok),
	)
	g.stat(plan.StatAggDrops)
	g.emit(
		asm.Ja.Label(done),
		asm.StoreMem(asm.R10, slot, asm.R0, asm.DWord).WithSymbol(ok),
	)
	return slot
}

// aggMapPtr is the instruction that loads a's map into R1: the map
// itself, or the generation aggGeneration kept in slot.
func (g *gen) aggMapPtr(a *plan.Agg, slot int16) asm.Instruction {
	if !g.opts.AggGenerations {
		return asm.LoadMapPtr(asm.R1, 0).WithReference(a.Map)
	}
	return asm.LoadMem(asm.R1, asm.R10, slot, asm.DWord)
}

// endGeneration frees the slot of aggGeneration.
func (g *gen) endGeneration() {
	if g.opts.AggGenerations {
		g.stack -= 8
	}
}
