package codegen

import (
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

// splitInsns is the size above which the clauses of one hook are spread
// over several programs. The verifier walks a program's every path up to
// a million instructions in all; branchy clauses (quantize, string
// compares) cost it 20 or more instructions walked per instruction, so a
// hook with hundreds of clauses (one per system call) must not be one
// program. Each further program costs an event its prologue again, so
// hooks of ordinary size keep one.
const splitInsns = 16 * 1024

// hookPrograms generates the programs of one hook: one, or several that
// run one after the other, each with a run of consecutive clauses, when
// the hook's code is larger than splitInsns and the kernel runs the
// programs of the hook in the order they are attached.
func (g *gen) hookPrograms(name string, hook provider.Hook, owner provider.Provider, probes []*provider.Probe) ([]*plan.Program, error) {
	clauses := g.hookClauses(probes)
	sites := len(g.p.Sites)
	prog, err := g.program(name, hook, owner, clauses, probes, true)
	if err != nil {
		return nil, err
	}
	if len(prog.Insns) <= splitInsns || len(clauses) == 1 || !ordered(hook) {
		return []*plan.Program{prog}, g.checkSize(prog, clauses)
	}
	g.p.Sites = g.p.Sites[:sites] // generated again below
	groups := g.groupClauses(clauses)
	var progs []*plan.Program
	for i, grp := range groups {
		prog, err := g.program(fmt.Sprintf("%s_%d", name, i), hook, owner, grp, groupProbes(grp, probes), i == len(groups)-1)
		if err != nil {
			return nil, err
		}
		if err := g.checkSize(prog, grp); err != nil {
			return nil, err
		}
		progs = append(progs, prog)
	}
	return progs, nil
}

// hookClauses returns the clauses that enable some of probes, in order.
func (g *gen) hookClauses(probes []*provider.Probe) []*check.Clause {
	in := map[uint32]bool{}
	for _, p := range probes {
		in[p.ID] = true
	}
	var out []*check.Clause
	for _, cl := range g.info.Clauses {
		if len(enabled(cl, in)) > 0 {
			out = append(out, cl)
		}
	}
	return out
}

// groupClauses cuts clauses into runs of at most splitInsns instructions
// (by the sizes the last program measured); a larger clause is a run of
// its own.
func (g *gen) groupClauses(clauses []*check.Clause) [][]*check.Clause {
	var groups [][]*check.Clause
	var cur []*check.Clause
	size := 0
	for _, cl := range clauses {
		n := g.sizes[cl]
		if len(cur) > 0 && size+n > splitInsns {
			groups = append(groups, cur)
			cur, size = nil, 0
		}
		cur = append(cur, cl)
		size += n
	}
	return append(groups, cur)
}

// groupProbes returns the probes of the hook (probes) that clauses enable.
func groupProbes(clauses []*check.Clause, probes []*provider.Probe) []*provider.Probe {
	want := map[uint32]bool{}
	for _, cl := range clauses {
		for _, p := range cl.Probes {
			want[p.ID] = true
		}
	}
	var out []*provider.Probe
	for _, p := range probes {
		if want[p.ID] {
			out = append(out, p)
		}
	}
	return out
}

// ordered reports whether the kernel runs the programs attached to hook in
// the order they were attached: raw tracepoints append to the
// tracepoint's list of functions; BEGIN, END and ERROR programs are run by
// the consumer in order. (Perf-event tracepoints and uprobes put a new
// program first, and a perf event has one program.)
func ordered(hook provider.Hook) bool {
	switch hook.Kind {
	case provider.HookRawTP, provider.HookBTFTP, provider.HookRun:
		return true
	}
	return false
}

// checkSize fails, at the largest clause, when prog is longer than the
// kernel loads.
func (g *gen) checkSize(prog *plan.Program, clauses []*check.Clause) error {
	n := int(prog.Insns.Size() / asm.InstructionSize)
	if n <= maxInsns {
		return nil
	}
	big := clauses[0]
	for _, cl := range clauses {
		if g.sizes[cl] > g.sizes[big] {
			big = cl
		}
	}
	if len(clauses) == 1 || g.sizes[big] > maxInsns {
		return &Error{Pos: big.Node.Pos(), Msg: fmt.Sprintf("clause is too large: it compiles to %d BPF instructions, and the kernel loads at most %d in a program", g.sizes[big], maxInsns)}
	}
	return &Error{Pos: big.Node.Pos(), Msg: fmt.Sprintf("the %d clauses of %s compile to %d BPF instructions, and the kernel loads at most %d in a program (this clause is the largest, %d)", len(clauses), prog.Hook, n, maxInsns, g.sizes[big])}
}

// clauseMark is the instruction metadata key marking where the code of a
// clause (its index) or of no clause (-1) begins.
type clauseMark struct{}

func markClause(ins asm.Instruction, clause int) asm.Instruction {
	ins.Metadata.Set(clauseMark{}, clause)
	return ins
}

// spans returns where each marked part of insns begins.
func spans(insns asm.Instructions) []plan.Span {
	var out []plan.Span
	off := 0
	for _, ins := range insns {
		if c, ok := ins.Metadata.Get(clauseMark{}).(int); ok {
			out = append(out, plan.Span{Off: off, Clause: c})
		}
		off += int(ins.Size() / asm.InstructionSize)
	}
	return out
}
