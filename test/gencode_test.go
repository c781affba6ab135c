package test

import (
	"fmt"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/agent"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// A dataset's programs, as the kernel has them once loaded (translated by
// the verifier: lookups inlined, map references as map IDs), are sonde
// -n's for the same D but for the named part of the generations
// (docs/analytics.md): at each aggregation update, the choice of the
// generation (the load of the index word's address, the load of the word,
// the branch to generation 1) and generation 1's copy of the lookup,
// insertion and second lookup, which must be generation 0's with the other
// map. Everything else — generation 0's path, the one sonde -n runs — must
// be the same instructions, jumps landing on the same instructions and
// maps of the same names. Every dynamic statistic of the catalogue with
// each breakdown (exported or not, so distributions on both scales), and
// user D with several aggregations in one clause, are compared.
func TestGenerationsSameCode(t *testing.T) {
	cat := stats.New()
	var srcs []string
	for _, st := range cat.Statistics() {
		names := []string{st.Name}
		for _, b := range st.Breakdowns {
			names = append(names, st.Name+"["+b.Name+"]")
		}
		for _, name := range names {
			for _, export := range []bool{false, true} {
				spec, err := stats.Parse(name)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				spec.Export = export
				pl, err := cat.Plan(spec)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if pl.Program != "" {
					srcs = append(srcs, pl.Program)
				}
			}
		}
	}
	if len(srcs) < 20 {
		t.Fatalf("only %d dynamic datasets", len(srcs))
	}
	srcs = append(srcs,
		`syscall::getppid:entry /pid != 1/ { @a[execname, tid] = count(); @b = sum(arg0); @c[probefunc] = llquantize(timestamp % 1000, 10, 0, 6, 20); @d = quantize(1); }`,
		`syscall::getppid:entry { @a = count(); } syscall::getppid:return { @a = count(); @b[execname] = lquantize(arg1, 0, 100, 10); }`,
		`syscall::getppid:entry { @a[tid] = min(arg0); @b = max(arg1); @c = stddev(arg2); }`)
	for _, src := range srcs {
		compareDatasetCode(t, src)
	}
	t.Logf("%d programs compared", len(srcs))
}

// compareDatasetCode loads src as the agent does and as sonde -n does and
// compares their programs.
func compareDatasetCode(t *testing.T, src string) {
	t.Helper()
	gcfg := agent.CompileConfig(src, agent.DefaultAggEntries)
	ncfg := *gcfg
	ncfg.Prog, ncfg.NoDestructive, ncfg.AggGenerations = "sonde", false, false
	gens := loadPrograms(t, gcfg)
	direct := loadPrograms(t, &ncfg)
	if len(gens) != len(direct) {
		t.Errorf("%s: %d programs in generations, %d in place", src, len(gens), len(direct))
		return
	}
	choices := 0
	for i := range gens {
		n, err := sameBut(gens[i], direct[i])
		if err != nil {
			t.Errorf("%s: program %d: %v", src, i, err)
		}
		choices += n
	}
	if choices == 0 {
		t.Errorf("%s: no program chooses a generation", src)
	}
}

// loadPrograms loads cfg's D and returns its programs' translated
// instructions, in the order loaded.
func loadPrograms(t *testing.T, cfg *tracer.Config) []xlated {
	t.Helper()
	p, err := tracer.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Start(&tracer.StartOptions{Sink: discard{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []xlated
	for _, prog := range s.Programs() {
		x, err := translated(prog)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	return out
}

// xlated is a program's translated code, one entry an instruction.
type xlated []xins

type xins struct {
	ins asm.Instruction
	// slot: where the instruction is, in 8-byte slots (a 64-bit load
	// takes two); target: the slot a jump or a relative call lands on, -1
	// for others; mapName: the name of the map a map load references.
	slot, target int
	mapName      string
}

func translated(prog *ebpf.Program) (xlated, error) {
	info, err := prog.Info()
	if err != nil {
		return nil, err
	}
	insns, err := info.Instructions()
	if err != nil {
		return nil, err
	}
	names := map[uint32]string{}
	var out xlated
	slot := 0
	for _, ins := range insns {
		x := xins{ins: ins, slot: slot, target: -1}
		n := int(ins.Size() / asm.InstructionSize)
		switch {
		case ins.IsLoadFromMap():
			id := uint32(ins.Constant)
			name, ok := names[id]
			if !ok {
				m, err := ebpf.NewMapFromID(ebpf.MapID(id))
				if err != nil {
					return nil, fmt.Errorf("map %d: %w", id, err)
				}
				mi, err := m.Info()
				m.Close()
				if err != nil {
					return nil, err
				}
				name, names[id] = mi.Name, mi.Name
			}
			x.mapName = name
		case ins.IsFunctionReference(), ins.IsFunctionCall():
			x.target = slot + n + int(ins.Constant)
		case ins.OpCode.Class().IsJump() && ins.OpCode.JumpOp() != asm.Call && ins.OpCode.JumpOp() != asm.Exit:
			if ins.OpCode.JumpOp() == asm.Ja && ins.OpCode.Class() == asm.Jump32Class {
				x.target = slot + n + int(ins.Constant) // gotol
			} else {
				x.target = slot + n + int(ins.Offset)
			}
		}
		out = append(out, x)
		slot += n
	}
	return out, nil
}

// at is the index of the instruction at slot s, or len(x).
func (x xlated) at(s int) int {
	for i := range x {
		if x[i].slot >= s {
			return i
		}
	}
	return len(x)
}

// sameBut checks that gens is direct with the named part of the
// generations added, and that each generation 1 copy is generation 0's;
// it returns how many times gens chooses a generation.
func sameBut(gens, direct xlated) (int, error) {
	named := map[int]bool{}
	choices := 0
	for i := 0; i < len(gens); i++ {
		if gens[i].mapName != plan.MapGenerations {
			continue
		}
		if i+2 >= len(gens) || gens[i+1].ins.OpCode.Class() != asm.LdXClass ||
			gens[i+2].ins.OpCode.JumpOp() != asm.JNE || gens[i+2].ins.Constant != 0 {
			return 0, fmt.Errorf("instruction %d: the generation index is read, but not as the choice of a generation", i)
		}
		start := gens.at(gens[i+2].target)
		end := -1
		for j := start; j < len(gens); j++ {
			if gens[j].ins.OpCode.JumpOp() == asm.Ja && gens[j].target <= gens[j].slot {
				end = j
				break
			}
		}
		if end < 0 || start <= i+2 {
			return 0, fmt.Errorf("instruction %d: no generation 1 copy after the choice", i)
		}
		if err := sameCopy(gens, i+3, start, end-start); err != nil {
			return 0, fmt.Errorf("instruction %d: %w", i, err)
		}
		for j := i; j <= i+2; j++ {
			named[j] = true
		}
		for j := start; j <= end; j++ {
			named[j] = true
		}
		choices++
	}
	var kept xlated
	for i, x := range gens {
		if !named[i] {
			kept = append(kept, x)
		}
	}
	a, b := normalize(kept), normalize(direct)
	if len(a) != len(b) {
		return 0, fmt.Errorf("%d instructions besides the generations' %d, sonde -n has %d", len(a), len(named), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return 0, fmt.Errorf("instruction %d (of %d, the generations' %d left out): %s in generations, %s in place", i, len(a), len(named), a[i], b[i])
		}
	}
	return choices, nil
}

// sameCopy checks that the n instructions at c1 (generation 1's) are those
// at c0 (generation 0's) naming another map: jumps within the copy land
// at the same place in it, jumps out of it on the same instruction.
func sameCopy(x xlated, c0, c1, n int) error {
	maps := 0
	for k := 0; k < n; k++ {
		a, b := x[c0+k], x[c1+k]
		ia, ib := a.ins, b.ins
		ia.Offset, ib.Offset = 0, 0
		if a.mapName != "" {
			maps++
			if a.mapName != b.mapName || ia.Constant == ib.Constant {
				return fmt.Errorf("generation 1's copy, instruction %d: map %s (%d), generation 0's %s (%d)", k, b.mapName, ib.Constant, a.mapName, ia.Constant)
			}
			ia.Constant, ib.Constant = 0, 0
		}
		if a.target >= 0 {
			ta, tb := x.at(a.target), x.at(b.target)
			if !(ta >= c0 && ta < c0+n && tb-c1 == ta-c0) && ta != tb {
				return fmt.Errorf("generation 1's copy, instruction %d: jumps to %d, generation 0's to %d", k, tb, ta)
			}
			ia.Constant, ib.Constant = 0, 0
		}
		if raw(ia) != raw(ib) {
			return fmt.Errorf("generation 1's copy, instruction %d: %v, generation 0's %v", k, ib, ia)
		}
	}
	if maps == 0 {
		return fmt.Errorf("generation 0's path names no map")
	}
	return nil
}

// normalize is each instruction as text: maps by name, jumps and relative
// calls by the index of the instruction they land on.
func normalize(x xlated) []string {
	idx := map[int]int{}
	for i, e := range x {
		idx[e.slot] = i
	}
	out := make([]string, len(x))
	for i, e := range x {
		ins := e.ins
		extra := ""
		switch {
		case e.mapName != "":
			extra = fmt.Sprintf(" map %s+%d", e.mapName, uint64(ins.Constant)>>32)
			ins.Constant = 0
		case e.target >= 0:
			// a target left out (a named instruction) is the next kept one
			t, ok := -1, false
			for s := e.target; !ok && s <= x[len(x)-1].slot; s++ {
				t, ok = idx[s]
			}
			extra = fmt.Sprintf(" -> %d", t)
			ins.Offset, ins.Constant = 0, 0
		}
		out[i] = raw(ins) + extra
	}
	return out
}

// raw is an instruction's fields as text.
func raw(ins asm.Instruction) string {
	return fmt.Sprintf("%v dst %v src %v off %d imm %d", ins.OpCode, ins.Dst, ins.Src, ins.Offset, ins.Constant)
}

// discard keeps none of a session's output.
type discard struct{}

func (discard) Firing(*value.Firing)       {}
func (discard) Fault(*value.Fault)         {}
func (discard) SetOption(string, string)   {}
func (discard) Final([]*value.Aggregation) {}
func (discard) Loss(value.Loss)            {}
