package provider_test

import (
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// pass evaluates a guard (loads, compares and jumps on R1, register moves)
// for a firing of probe ID id: true when it falls through, false when it
// jumps to skip.
func pass(t *testing.T, insns asm.Instructions, id uint32, skip string) bool {
	t.Helper()
	at := map[string]int{}
	for i, ins := range insns {
		if s := ins.Symbol(); s != "" {
			at[s] = i
		}
	}
	var r1 uint64
	for pc, steps := 0, 0; pc < len(insns); steps++ {
		if steps > 1000 {
			t.Fatal("guard loops")
		}
		ins := insns[pc]
		pc++
		op := ins.OpCode
		switch {
		case op.Class().IsLoad():
			if ins.Dst != asm.R1 || ins.Src != provider.RegScratch || ins.Offset != provider.CtxProbeID {
				t.Fatalf("guard loads %v", ins)
			}
			r1 = uint64(id)
			continue
		case op.Class().IsALU():
			if ins.Dst == asm.R1 && !(op.ALUOp() == asm.Mov && ins.Src == asm.R1 && op.Source() == asm.RegSource) {
				t.Fatalf("guard changes R1: %v", ins)
			}
			continue
		case !op.Class().IsJump():
			t.Fatalf("unexpected instruction %v", ins)
		}
		if op.JumpOp() != asm.Ja && ins.Dst != asm.R1 {
			t.Fatalf("guard compares %v", ins)
		}
		c := uint64(ins.Constant)
		var taken bool
		switch op.JumpOp() {
		case asm.Ja:
			taken = true
		case asm.JEq:
			taken = r1 == c
		case asm.JLT:
			taken = r1 < c
		case asm.JGT:
			taken = r1 > c
		default:
			t.Fatalf("unexpected jump %v", ins)
		}
		if !taken {
			continue
		}
		ref := ins.Reference()
		if ref == skip {
			return false
		}
		next, ok := at[ref]
		if !ok {
			t.Fatalf("jump to unknown label %q", ref)
		}
		pc = next
	}
	return true
}

func ids(from, to uint32, step uint32) []*provider.Probe {
	var out []*provider.Probe
	for id := from; id <= to; id += step {
		out = append(out, &provider.Probe{ID: id})
	}
	return out
}

// UprobeGuard (pid and USDT hooks) lets through exactly the probe IDs a
// clause wants, by a list of compares or, for a long contiguous run, a
// range.
func TestUprobeGuard(t *testing.T) {
	all := ids(100, 160, 1)
	for _, c := range []struct {
		name string
		want []*provider.Probe
	}{
		{"one", ids(130, 130, 1)},
		{"three", []*provider.Probe{all[40], all[3], all[9]}},
		{"every other", ids(100, 160, 2)},
		{"16 contiguous", ids(110, 125, 1)},
		{"17 contiguous", ids(110, 126, 1)},
		{"40 contiguous", ids(101, 140, 1)},
		{"17 with a hole", append(ids(110, 120, 1), ids(122, 127, 1)...)},
	} {
		g := provider.UprobeGuard(provider.Hook{}, c.want, all, "skip")
		in := map[uint32]bool{}
		for _, p := range c.want {
			in[p.ID] = true
		}
		for id := uint32(0); id < 200; id++ {
			if got := pass(t, g, id, "skip"); got != in[id] {
				t.Errorf("%s: probe %d passes %v, want %v", c.name, id, got, in[id])
			}
		}
	}
	if g := provider.UprobeGuard(provider.Hook{}, all, all, "skip"); g != nil {
		t.Errorf("every probe wanted: guard %v", g)
	}
}

// HookProbes numbers the probes of its table from 0, in table order.
func TestHookProbes(t *testing.T) {
	defs := []provider.HookProbe{{Name: "a", Tracepoint: "tp1"}, {Name: "b", Tracepoint: "tp1", Subject: 3}, {Name: "c", Tracepoint: "tp2"}}
	ps := provider.HookProbes(fakeProvider{}, defs, provider.Desc{})
	for i, p := range ps {
		if p.ID != uint32(i) || p.Name != defs[i].Name || p.Function != defs[i].Tracepoint || p.Provider != "fake" ||
			p.Hook != (provider.Hook{Kind: provider.HookBTFTP, Name: defs[i].Tracepoint, Group: defs[i].Name}) || p.Subject != defs[i].Subject {
			t.Errorf("probe %d: %+v", i, p)
		}
	}
	if ps := provider.HookProbes(fakeProvider{}, defs, provider.Desc{Function: "tp1", Name: "b"}); len(ps) != 1 || ps[0].ID != 1 {
		t.Errorf("::tp1:b: %+v", ps)
	}
	if ps := provider.HookProbes(fakeProvider{}, defs, provider.Desc{Provider: "other"}); len(ps) != 0 {
		t.Errorf("other::: matched %d", len(ps))
	}
}

type fakeProvider struct{ provider.Provider }

func (fakeProvider) Name() string { return "fake" }

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"", "read", true}, {"*", "", true}, {"read*", "readv", true}, {"read*", "pread64", false},
		{"read", "readv", false}, {"re?d", "read", true}, {"[rw]*", "write", true}, {"[", "[", false},
		{"sched", "sched", true}, {"BEGIN", "begin", false},
	} {
		if got := provider.Glob(c.pattern, c.s); got != c.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}

func TestNeeds(t *testing.T) {
	var n provider.Needs
	if n.AnyArg() {
		t.Error("no argument needed: AnyArg")
	}
	n.Args[9] = true
	if !n.AnyArg() {
		t.Error("arg9 needed: not AnyArg")
	}
	for n, want := range map[int]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord, 16: asm.DWord} {
		if got := provider.SizeOf(n); got != want {
			t.Errorf("SizeOf(%d) = %v, want %v", n, got, want)
		}
	}
}
