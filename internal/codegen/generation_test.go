package codegen

import (
	"testing"

	"github.com/cilium/ebpf"

	"github.com/sonde-trace/sonde/internal/plan"
)

// With AggGenerations every aggregation's map is the inner spec of a
// two-slot ARRAY_OF_MAPS (the index of the current slot beside them), the code references each generation's map by
// name (plan.GenerationSlot), never the outer map, and
// without it the plan is what it was (sonde -n's code does not change).
func TestAggGenerations(t *testing.T) {
	src := `BEGIN { @n = count(); @k[1, "a"] = sum(2); @q = quantize(3); }`
	info, err := checkSource(src, false)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := Generate(info, Options{Providers: fakeResolver})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := Generate(info, Options{Providers: fakeResolver, AggGenerations: true})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generate(info, Options{Providers: fakeResolver})
	if err != nil {
		t.Fatal(err)
	}
	if planString(direct) != planString(again) {
		t.Fatal("generating with generations changed a later plan without them")
	}
	for _, m := range direct.Maps {
		if m.Type == ebpf.ArrayOfMaps {
			t.Errorf("without generations: outer map %s", m.Name)
		}
	}
	specs := map[string]*ebpf.MapSpec{}
	for _, m := range gen.Maps {
		specs[m.Name] = m
	}
	if m := specs[plan.MapGenerations]; m == nil || m.Type != ebpf.Array || m.MaxEntries != 1 {
		t.Errorf("the index of the current generation: %+v", m)
	}
	refs := map[string]bool{}
	for _, p := range gen.Programs {
		for _, ins := range p.Insns {
			if r := ins.Reference(); r != "" {
				refs[r] = true
			}
		}
	}
	for _, a := range gen.Aggs {
		outer := specs[GenerationMap(a.Map)]
		if outer == nil || outer.Type != ebpf.ArrayOfMaps || outer.MaxEntries != 2 || outer.InnerMap == nil {
			t.Errorf("@%s: outer map %+v", a.Name, outer)
			continue
		}
		if outer.InnerMap.Name != a.Map || specs[a.Map] != nil {
			t.Errorf("@%s: inner spec %s, and a direct map too: %v", a.Name, outer.InnerMap.Name, specs[a.Map] != nil)
		}
		want := ebpf.PerCPUHash
		if len(a.Keys) == 0 {
			want = ebpf.PerCPUArray
		}
		if outer.InnerMap.Type != want {
			t.Errorf("@%s: inner map %v, want %v", a.Name, outer.InnerMap.Type, want)
		}
		g0, g1 := plan.GenerationSlot(a.Map, 0), plan.GenerationSlot(a.Map, 1)
		if refs[a.Map] || refs[GenerationMap(a.Map)] || !refs[g0] || !refs[g1] {
			t.Errorf("@%s: the code references %s: %v, %s: %v, %s: %v, %s: %v", a.Name, a.Map, refs[a.Map],
				GenerationMap(a.Map), refs[GenerationMap(a.Map)], g0, refs[g0], g1, refs[g1])
		}
	}
}
