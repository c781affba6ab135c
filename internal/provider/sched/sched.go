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
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Provider implements provider.Provider.
type Provider struct{}

// Name implements provider.Provider.
func (Provider) Name() string { return "sched" }

type probeDef struct {
	name    string
	tp      string
	subject int  // provider.Probe.Subject
	args    bool // args[0] lwpsinfo_t, args[1] psinfo_t of a task argument
	taskArg int  // that task's argument index
}

var defs = []probeDef{
	{name: "on-cpu", tp: "sched_switch", subject: 3},
	{name: "off-cpu", tp: "sched_switch", args: true, taskArg: 2},
	{name: "sleep", tp: "sched_switch"},
	{name: "preempt", tp: "sched_switch"},
	{name: "wakeup", tp: "sched_wakeup", args: true, taskArg: 0},
}

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	var out []*provider.Probe
	for i, def := range defs {
		pr := &provider.Probe{ID: uint32(i + 1), Provider: "sched", Function: def.tp, Name: def.name,
			Hook:    provider.Hook{Kind: provider.HookBTFTP, Name: def.tp, Group: def.name},
			Subject: def.subject, Owner: p}
		if def.args {
			pr.Args = []provider.Arg{
				{Type: "struct task_struct *", XType: "lwpsinfo_t *", Struct: provider.LwpsinfoT},
				{Type: "struct task_struct *", XType: "psinfo_t *", Struct: provider.PsinfoT},
			}
		}
		if d.Matches(pr) {
			out = append(out, pr)
		}
	}
	return out, nil
}

// ProgramType implements provider.Provider.
func (Provider) ProgramType(provider.Hook) ebpf.ProgramType { return ebpf.Tracing }

// Prologue implements provider.Provider. Each probe has a hook of its own
// (several programs on one tracepoint), so that a firing of sched_switch
// fires on-cpu and off-cpu clauses each once, with their own probe IDs.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	pr := probes[0]
	var def probeDef
	for _, d := range defs {
		if d.name == pr.Name {
			def = d
		}
	}
	r, ctx := provider.RegScratch, provider.RegCtx
	insns := asm.Instructions{
		provider.StoreImm64(r, provider.CtxProbeID, int32(pr.ID)),
		provider.StoreImm64(r, provider.CtxErrno, 0),
	}
	switch def.name {
	case "sleep": // prev_state != TASK_RUNNING
		insns = append(insns, asm.LoadMem(asm.R0, ctx, 24, asm.DWord), asm.LSh.Imm(asm.R0, 32), asm.JEq.Imm(asm.R0, 0, skip))
	case "preempt":
		insns = append(insns, asm.LoadMem(asm.R0, ctx, 0, asm.DWord), asm.And.Imm(asm.R0, 0xff), asm.JEq.Imm(asm.R0, 0, skip))
	}
	for i := 0; i < 10; i++ {
		if n.Args[i] {
			insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
		}
	}
	if def.args && (n.Args[0] || n.Args[1]) {
		insns = append(insns, asm.LoadMem(asm.R8, ctx, int16(8*def.taskArg), asm.DWord))
		insns = append(insns, provider.Clear(0, provider.XlateBuf)...)
		insns = append(insns, provider.FillTask(asm.R8)...)
	}
	return insns, nil
}

// Guard implements provider.Provider: one probe per hook.
func (Provider) Guard(provider.Hook, []*provider.Probe, []*provider.Probe, string) asm.Instructions {
	return nil
}
