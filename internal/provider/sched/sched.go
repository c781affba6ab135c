// Package sched is the sched provider: CPU scheduling, on the kernel's
// stable scheduler tracepoints (BTF-typed raw tracepoints, so that the
// tasks they pass are pointers the verifier trusts).
//
//	on-cpu    sched_switch, for the incoming thread (its pid, tid,
//	          execname, self-> and ustack(): the stack it had when it
//	          went off CPU), as DTrace fires it in that thread
//	off-cpu   sched_switch, in the outgoing thread; args[0] lwpsinfo_t
//	          and args[1] psinfo_t of the thread to run next
//	sleep     sched_switch when the outgoing thread blocks (it is not
//	          runnable), in that thread
//	preempt   sched_switch when the outgoing thread is preempted
//	wakeup    sched_wakeup, in the waker; args[0], args[1] the woken
//
// enqueue, dequeue, tick, remain-cpu, change-pri and surrender have no
// stable tracepoint on Linux and are not published.
package sched

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Provider implements provider.Provider.
type Provider struct{ provider.OneProbePerHook }

// Name implements provider.Provider.
func (Provider) Name() string { return "sched" }

// taskArgs are args[0] lwpsinfo_t and args[1] psinfo_t of a task.
var taskArgs = []provider.Arg{
	{Type: "struct task_struct *", XType: "lwpsinfo_t *", Struct: provider.LwpsinfoT},
	{Type: "struct task_struct *", XType: "psinfo_t *", Struct: provider.PsinfoT},
}

var defs = []provider.HookProbe{
	{Name: "on-cpu", Tracepoint: "sched_switch", Subject: 3}, // next
	{Name: "off-cpu", Tracepoint: "sched_switch", Args: taskArgs},
	{Name: "sleep", Tracepoint: "sched_switch"},
	{Name: "preempt", Tracepoint: "sched_switch"},
	{Name: "wakeup", Tracepoint: "sched_wakeup", Args: taskArgs},
}

// taskArg is the tracepoint argument holding the task args[] describe.
var taskArg = map[string]int{"off-cpu": 2, "wakeup": 0}

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	return provider.HookProbes(p, defs, d), nil
}

// Prologue implements provider.Provider. Each probe has a hook of its own
// (several programs on one tracepoint), so that a firing of sched_switch
// fires on-cpu and off-cpu clauses each once, with their own probe IDs.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	pr := probes[0]
	ctx := provider.RegCtx
	insns := provider.PrologueStart(pr.ID)
	switch pr.Name {
	case "sleep": // prev_state != TASK_RUNNING
		insns = append(insns, asm.LoadMem(asm.R0, ctx, 24, asm.DWord), asm.LSh.Imm(asm.R0, 32), asm.JEq.Imm(asm.R0, 0, skip))
	case "preempt":
		insns = append(insns, asm.LoadMem(asm.R0, ctx, 0, asm.DWord), asm.And.Imm(asm.R0, 0xff), asm.JEq.Imm(asm.R0, 0, skip))
	}
	if arg, ok := taskArg[pr.Name]; ok && (n.Args[0] || n.Args[1]) {
		insns = append(insns, provider.FillTaskArg(arg)...)
	}
	return insns, nil
}

// Attributes implements provider.Attributed: illumos's for sched.
func (Provider) Attributes() provider.Pattr { return provider.StableSDTAttr }
