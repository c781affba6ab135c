package codegen

// Aggregation generations (Options.AggGenerations), for a reader that
// takes each interval's events whole instead of differencing cumulative
// counts (sonded): every aggregation's map is reached through a
// one-slot outer map (BPF_MAP_TYPE_ARRAY_OF_MAPS) that holds its current
// generation, and the reader swaps in an empty generation each interval.
// The kernel's update of an outer slot returns only once every running
// non-sleepable program has finished (kernel/bpf/syscall.c,
// maybe_wait_bpf_programs), so the generation swapped out then holds
// exactly the events of the interval: none still on their way into it,
// none counted in the next.
//
// An update fetches the generation once and keeps it in regTmp (free
// until the value is found, and kept across helper calls), so that its
// lookup, insertion and second lookup all go to the same map even when a
// swap happens between them: an event lands in one generation, whole. The outer lookup is inlined by the verifier (an
// array's element address); the inner lookups are those a direct map
// has.
//
//	slot = 0; regTmp = lookup(outer, &slot)  // the current generation
//	if inner == NULL { drops++; goto done }  // never: the runtime fills it
//	... lookup(inner, key), update(inner, key, zero), lookup(inner, key)

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/plan"
)

// GenerationMap names the outer map through which, under
// Options.AggGenerations, the aggregation map named agg is reached. The
// runtime creates the generations from the outer map's InnerMap spec and
// keeps the one swapped out last readable under agg's own name.
func GenerationMap(agg string) string { return agg + "_gen" }

// generationSpec wraps an aggregation's map spec in its outer map when
// aggregations have generations.
func (g *gen) generationSpec(inner *ebpf.MapSpec) *ebpf.MapSpec {
	if !g.opts.AggGenerations {
		return inner
	}
	return &ebpf.MapSpec{Name: GenerationMap(inner.Name), Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4,
		MaxEntries: 1, InnerMap: inner}
}

// aggGeneration emits the fetch of a's current generation into a stack
// slot, counting a drop and jumping to done if the outer slot is empty;
// it returns the slot, 0 when aggregations are direct. The caller frees
// it with endGeneration. It is called before the update's arguments and
// key are computed: the load of the generation, and the loads it depends
// on, are then done by the time the map is used, off the path the
// update waits on (fetched just before the lookup, they delayed every
// event by some ns).
func (g *gen) aggGeneration(a *plan.Agg, done string) int16 {
	if !g.opts.AggGenerations {
		return 0
	}
	g.stack += 8
	slot := int16(-g.stack)
	ok := g.label("gen_ok")
	g.emit(
		asm.StoreImm(asm.R10, slot, 0, asm.Word), // the outer key
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
