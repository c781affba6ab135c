package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

// DTrace's activity states (dtrace_state_t.dts_activity), which sonde keeps
// in the globals map: until BEGIN has run, only BEGIN fires; after exit(),
// only END and ERROR do (dtrace_probe: "If our provider isn't the dtrace
// pseudo provider, we're not interested"), and a BEGIN clause after one that
// called exit() does not run. The consumer stops tracing the same way.
const (
	globActivity = plan.GlobActivity // u64 in the globals map
	actWarmup    = plan.ActWarmup    // BEGIN has not run (or is running)
	actActive    = plan.ActActive
	actDraining  = plan.ActDraining // exit() was called
)

// isBegin reports whether hook is BEGIN's: the dtrace provider's probes
// are the ones with no kernel hook, run by the consumer.
func isBegin(hook provider.Hook) bool {
	return hook.Kind == provider.HookRun && hook.Name == "BEGIN"
}

// hasBegin reports whether the program has a BEGIN clause: without one,
// the other probes need not wait for it.
func (g *gen) hasBegin() bool {
	for _, p := range g.info.Probes {
		if p.Provider == "dtrace" && p.Name == "BEGIN" {
			return true
		}
	}
	return false
}

// activityGate ends a program of a kernel hook (any provider but dtrace's
// BEGIN, END and ERROR) unless the tracing session is active.
func (g *gen) activityGate(hook provider.Hook) {
	if hook.Kind == provider.HookRun {
		return
	}
	if g.opts.OnlyCPU {
		// the cpu option: firings on other CPUs record nothing
		g.emit(asm.FnGetSmpProcessorId.Call(), asm.JNE.Imm(asm.R0, int32(g.opts.CPU), "exit"))
	}
	g.emit(
		asm.LoadMapValue(asm.R1, 0, globActivity).WithReference(plan.MapGlobals),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.DWord),
	)
	if g.hasBegin() {
		g.emit(asm.JNE.Imm(asm.R0, actActive, "exit"))
	} else {
		g.emit(asm.JGT.Imm(asm.R0, actActive, "exit"))
	}
}

// beginGate skips a BEGIN clause once an earlier one has called exit().
func (g *gen) beginGate(hook provider.Hook, skip string) {
	if !isBegin(hook) {
		return
	}
	g.emit(
		asm.LoadMapValue(asm.R1, 0, globActivity).WithReference(plan.MapGlobals),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.DWord),
		asm.JEq.Imm(asm.R0, actDraining, skip),
	)
}

// beginDone makes the session active at the end of the BEGIN program,
// unless a BEGIN clause has called exit().
func (g *gen) beginDone(hook provider.Hook) {
	if !isBegin(hook) {
		return
	}
	g.emit(
		asm.LoadMapValue(asm.R1, 0, globActivity).WithReference(plan.MapGlobals),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.DWord),
		asm.JNE.Imm(asm.R0, actWarmup, "exit"),
		provider.StoreImm64(asm.R1, 0, actActive),
	)
}

// draining records that exit() was called, and its status (the record's
// field at off in scratch), so that the consumer knows of it even when the
// ring buffer had no room for the record.
func (g *gen) draining(off int) {
	g.emit(
		asm.LoadMem(asm.R0, rS, int16(off), asm.DWord),
		asm.LoadMapValue(asm.R1, 0, plan.GlobExit).WithReference(plan.MapGlobals),
		asm.StoreMem(asm.R1, 0, asm.R0, asm.DWord),
		asm.LoadMapValue(asm.R1, 0, globActivity).WithReference(plan.MapGlobals),
		provider.StoreImm64(asm.R1, 0, actDraining),
	)
}
