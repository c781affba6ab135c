package codegen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// manyClauses returns n clauses on probe with a quantize each.
func manyClauses(probe string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s /arg0 != %d/ { @q%d = quantize(arg0); }\n", probe, i, i)
	}
	return b.String()
}

// TestSplitHook: the clauses of a hook too large for one program are
// spread, in order, over programs of the hook under splitInsns each (a
// raw tracepoint runs its programs in the order they are attached); a
// hook of ordinary size, or one whose programs would not run in order,
// keeps one program.
func TestSplitHook(t *testing.T) {
	tests := []struct {
		src   string
		progs int // on the hook, at least
		hook  provider.HookKind
	}{
		{manyClauses("syscall::read:return", 3), 1, provider.HookRawTP},
		{manyClauses("syscall::read:return", 400), 3, provider.HookRawTP},
		{manyClauses("tick-1sec", 400), 1, provider.HookPerf},
	}
	for _, tc := range tests {
		p, err := compileSource(tc.src, false)
		if err != nil {
			t.Fatal(err)
		}
		var clauses []int
		n := 0
		for _, pr := range p.Programs {
			if pr.Hook.Kind != tc.hook {
				continue
			}
			n++
			if tc.progs > 1 && pr.Insns.Size()/asm.InstructionSize > 2*splitInsns {
				t.Errorf("program %s has %d instructions", pr.Name, pr.Insns.Size()/asm.InstructionSize)
			}
			for _, s := range pr.Spans {
				if s.Clause >= 0 {
					clauses = append(clauses, s.Clause)
				}
			}
		}
		if n < tc.progs || tc.progs == 1 && n != 1 {
			t.Errorf("%d clauses on %v: %d programs, want %d", strings.Count(tc.src, "\n"), tc.hook, n, tc.progs)
		}
		for i, c := range clauses {
			if c != i {
				t.Fatalf("%v: clauses out of order: %v", tc.hook, clauses)
			}
		}
		if len(clauses) != strings.Count(tc.src, "\n") {
			t.Errorf("%v: %d clauses in the programs, want %d", tc.hook, len(clauses), strings.Count(tc.src, "\n"))
		}
	}
}
