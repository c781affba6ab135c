package format

import (
	"fmt"
	"strings"

	"github.com/sonde-trace/sonde/internal/value"
)

// Flow indentation (dtrace -F, the flowindent option), as dtrace(1)'s
// chew() and libdtrace's dt_flowindent() lay it out: a firing of a probe
// named "entry" (or "...-entry") prints " -> function" and indents what
// follows by two; one named "return" (or "...-return") unindents and
// prints " <- function"; any other prints "| function:name". The syscall
// provider's arrows are "=>" and "<=". The header and the prefixes are
// printed even with -q, as dtrace(1) does.

// FlowHeader is dtrace(1)'s header under flowindent.
func FlowHeader() string { return fmt.Sprintf("%3s %-41s\n", "CPU", "FUNCTION") }

// flowState is the indentation so far and the clause that printed last.
type flowState struct {
	indent    int
	lastEPID  uint32
	lastProbe uint32
}

// flowKind is DTRACEFLOW_ENTRY, _RETURN or _NONE.
type flowKind int

const (
	flowNone flowKind = iota
	flowEntry
	flowReturn
)

// flowOf classifies a probe by its name: "entry" or a name ending in
// "-entry" enters, "return" or "-return" returns ("carpentry" does not).
func flowOf(name string) flowKind {
	switch {
	case name == "entry" || strings.HasSuffix(name, "-entry"):
		return flowEntry
	case name == "return" || strings.HasSuffix(name, "-return"):
		return flowReturn
	}
	return flowNone
}

// prefix returns the firing's "CPU FUNCTION" prefix and moves the
// indentation. A second clause of the entry probe that printed last does
// not indent again (it prints as "| function:entry"), as dt_flowindent
// does. dt_flowindent also keeps a return from unindenting when the next
// record in its buffer is another clause of the same probe; records reach
// this sink one at a time, so each return unindents (see docs/compat.md).
func (s *flowState) prefix(f *value.Firing) string {
	kind := flowOf(f.Probe.Name)
	if kind == flowEntry && s.lastEPID != 0 && f.EPID != s.lastEPID && f.Probe.ID == s.lastProbe {
		kind = flowNone
	}
	s.lastEPID, s.lastProbe = f.EPID, f.Probe.ID
	syscall := f.Probe.Provider == "syscall"
	var name string
	switch kind {
	case flowEntry:
		name = arrow(" -> ", " => ", syscall) + f.Probe.Function
	case flowReturn:
		if s.indent > 0 {
			s.indent -= 2
		}
		name = arrow(" <- ", " <= ", syscall) + f.Probe.Function
	default:
		name = "| " + f.Probe.Function + ":" + f.Probe.Name
	}
	out := fmt.Sprintf("%3d %-41s ", f.CPU, strings.Repeat(" ", s.indent)+name)
	if kind == flowEntry {
		s.indent += 2
	}
	return out
}

func arrow(plain, sys string, syscall bool) string {
	if syscall {
		return sys
	}
	return plain
}
