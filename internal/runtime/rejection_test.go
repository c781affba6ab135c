package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

func TestRejection(t *testing.T) {
	tests := []struct {
		log    []string
		reason string
		insn   int
	}{
		{[]string{"jump out of range from insn 7 to -12746", "processed 0 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0"},
			"jump out of range from insn 7 to -12746", 7},
		{[]string{"0: R1=ctx() R10=fp0", "0: (bf) r6 = r1", "1: (b7) r0 = 0", "993: (bf) r2 = r2                     ; R2=105",
			"994: (a5) if r2 < 0x7f goto pc+1      ; R2=105", "BPF program is too large. Processed 1000001 insn",
			"processed 1000001 insns (limit 1000000) max_states_per_insn 4 total_states 79915 peak_states 16113 mark_read 0"},
			"BPF program is too large. Processed 1000001 insn", 994},
		{[]string{"12: (61) r0 = *(u32 *)(r1 +4096)", "invalid access to map value, value_size=8 off=4096 size=4", "R1 min value is outside of the allowed memory range",
			"processed 13 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 0"},
			"R1 min value is outside of the allowed memory range", 12},
	}
	for _, tc := range tests {
		reason, insn := rejection(tc.log)
		if reason != tc.reason || insn != tc.insn {
			t.Errorf("rejection(%q) = %q, %d, want %q, %d", tc.log, reason, insn, tc.reason, tc.insn)
		}
	}
}

// TestVerifierErrorNamesClause: a rejection at an instruction of a
// clause's code names that clause, not every clause of the program.
func TestVerifierErrorNamesClause(t *testing.T) {
	p := &plan.Plan{Records: []*plan.Record{
		{Pos: token.Pos{File: "a.d", Line: 1, Col: 1}},
		{Pos: token.Pos{File: "a.d", Line: 5, Col: 1}},
	}}
	pr := &plan.Program{Hook: provider.Hook{Kind: provider.HookRawTP, Name: "sys_exit"},
		Spans: []plan.Span{{Off: 10, Clause: 0}, {Off: 500, Clause: 1}, {Off: 2000, Clause: -1}}}
	ve := &ebpf.VerifierError{Log: []string{"700: (bf) r2 = r2", "BPF program is too large. Processed 1000001 insn", "processed 1000001 insns (limit 1000000)"}}
	err := verifierError(p, pr, ve, false)
	var ce *ClauseError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a ClauseError", err)
	}
	if ce.Pos.Line != 5 || !strings.Contains(ce.Msg, "too complex") || !strings.Contains(ce.Msg, "run with -v") {
		t.Errorf("got %v", err)
	}
	ve.Log[0] = "3: (bf) r2 = r2" // the prologue
	if err := verifierError(p, pr, ve, false); errors.As(err, &ce) || !strings.Contains(err.Error(), "clause at a.d:1:1, clause at a.d:5:1") {
		t.Errorf("prologue: got %v", err)
	}
}
