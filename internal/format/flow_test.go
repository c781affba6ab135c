package format

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

// Probe names enter or return as dt_flowindent reads them: "entry" and
// "...-entry" enter, but a name that merely ends in the letters does not.
func TestFlowOf(t *testing.T) {
	for name, want := range map[string]flowKind{
		"entry": flowEntry, "function-entry": flowEntry, "carpentry": flowNone,
		"return": flowReturn, "method-return": flowReturn, "noreturn": flowNone,
		"BEGIN": flowNone, "tick-1s": flowNone,
	} {
		if got := flowOf(name); got != want {
			t.Errorf("flowOf(%q) = %d, want %d", name, got, want)
		}
	}
}

// An unmatched return never indents below zero, and a USDT
// function-entry/function-return pair indents like entry/return.
func TestFlowPrefix(t *testing.T) {
	var s flowState
	probe := func(id uint32, fn, name string) *value.Firing {
		return &value.Firing{Probe: value.Probe{ID: id, Provider: "sh", Function: fn, Name: name}, EPID: id}
	}
	got := []string{
		s.prefix(probe(1, "f", "function-return")),
		s.prefix(probe(2, "g", "function-entry")),
		s.prefix(probe(3, "g", "builtin")),
		s.prefix(probe(1, "g", "function-return")),
	}
	want := []string{
		"  0  <- f                                     ",
		"  0  -> g                                     ",
		"  0   | g:builtin                             ",
		"  0  <- g                                     ",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, got[i], want[i])
		}
	}
}
