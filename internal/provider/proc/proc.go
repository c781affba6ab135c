// Package proc is the proc provider: process and thread life cycle and
// signals, on the kernel's stable tracepoints (BTF-typed raw tracepoints).
//
//	exec-success  sched_process_exec, in the process after exec
//	exit          sched_process_exit of the last thread; args[0] is the
//	              reason (CLD_EXITED 1, CLD_KILLED 2, CLD_DUMPED 3)
//	lwp-exit      sched_process_exit of any other thread
//	create        sched_process_fork of a new process, in the parent;
//	              args[0] psinfo_t of the child
//	lwp-create    sched_process_fork of a new thread, in the creator;
//	              args[0] lwpsinfo_t, args[1] psinfo_t of the thread
//	signal-send   signal_generate, in the sender; args[0] lwpsinfo_t,
//	              args[1] psinfo_t of the target, args[2] the signal
//	signal-handle signal_deliver, in the receiving thread; args[0] the
//	              signal, args[1] 0 (no siginfo_t copy), args[2] the
//	              handler's address
//
// exec, exec-failure, start, lwp-start and signal-clear have no tracepoint
// at the point DTrace fires them and are not published.
package proc

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/provider"
)

// Provider implements provider.Provider.
type Provider struct{}

// Name implements provider.Provider.
func (Provider) Name() string { return "proc" }

var defs = []struct{ name, tp string }{
	{"exec-success", "sched_process_exec"},
	{"exit", "sched_process_exit"},
	{"lwp-exit", "sched_process_exit"},
	{"create", "sched_process_fork"},
	{"lwp-create", "sched_process_fork"},
	{"signal-send", "signal_generate"},
	{"signal-handle", "signal_deliver"},
}

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

var (
	psArg  = provider.Arg{Type: "struct task_struct *", XType: "psinfo_t *", Struct: provider.PsinfoT}
	lwpArg = provider.Arg{Type: "struct task_struct *", XType: "lwpsinfo_t *", Struct: provider.LwpsinfoT}
	intArg = provider.Arg{Type: "int"}
)

func args(name string) []provider.Arg {
	switch name {
	case "exit":
		return []provider.Arg{intArg}
	case "create":
		return []provider.Arg{psArg}
	case "lwp-create", "signal-send":
		a := []provider.Arg{lwpArg, psArg}
		if name == "signal-send" {
			a = append(a, intArg)
		}
		return a
	case "signal-handle":
		return []provider.Arg{intArg, {Type: "siginfo_t *"}, {Type: "void (*)(void)"}}
	}
	return nil
}

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	var out []*provider.Probe
	for i, def := range defs {
		pr := &provider.Probe{ID: uint32(i + 1), Provider: "proc", Function: def.tp, Name: def.name,
			Hook: provider.Hook{Kind: provider.HookBTFTP, Name: def.tp, Group: def.name},
			Args: args(def.name), Owner: p}
		if d.Matches(pr) {
			out = append(out, pr)
		}
	}
	return out, nil
}

// ProgramType implements provider.Provider.
func (Provider) ProgramType(provider.Hook) ebpf.ProgramType { return ebpf.Tracing }

// Prologue implements provider.Provider.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	pr := probes[0]
	r, ctx := provider.RegScratch, provider.RegCtx
	insns := asm.Instructions{
		provider.StoreImm64(r, provider.CtxProbeID, int32(pr.ID)),
		provider.StoreImm64(r, provider.CtxErrno, 0),
	}
	for i := 0; i < 10; i++ {
		insns = append(insns, provider.StoreImm64(r, int16(provider.CtxArg0+8*i), 0))
	}
	fill := n.Args[0] || n.Args[1]
	switch pr.Name {
	case "exit", "lwp-exit":
		// the task is current; the group is dead when signal->live is 0
		insns = append(insns, asm.LoadMem(asm.R8, ctx, 0, asm.DWord))
		insns = append(insns, provider.ReadTaskField(asm.R8, "signal", provider.CtxTemp, 8)...)
		insns = append(insns, asm.LoadMem(asm.R4, r, provider.CtxTemp, asm.DWord))
		insns = append(insns, provider.ReadField(asm.R4, "signal_struct", "live", provider.CtxTemp, 4)...)
		insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.Word))
		if pr.Name == "exit" {
			insns = append(insns, asm.JNE.Imm(asm.R0, 0, skip))
			// reason from exit_code: killed by a signal, dumped core, or exited
			insns = append(insns, provider.ReadTaskField(asm.R8, "exit_code", provider.CtxTemp, 4)...)
			insns = append(insns,
				asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.Word),
				asm.Mov.Imm(asm.R1, 1), // CLD_EXITED
				asm.Mov.Reg(asm.R2, asm.R0),
				asm.And.Imm(asm.R2, 0x7f),
				asm.JEq.Imm(asm.R2, 0, "proc_reason"),
				asm.Mov.Imm(asm.R1, 2), // CLD_KILLED
				asm.And.Imm(asm.R0, 0x80),
				asm.JEq.Imm(asm.R0, 0, "proc_reason"),
				asm.Mov.Imm(asm.R1, 3), // CLD_DUMPED
				asm.StoreMem(r, provider.CtxArg0, asm.R1, asm.DWord).WithSymbol("proc_reason"),
			)
		} else {
			insns = append(insns, asm.JEq.Imm(asm.R0, 0, skip))
		}
	case "create", "lwp-create":
		// child: a new process when its pid is its tgid
		insns = append(insns, asm.LoadMem(asm.R8, ctx, 8, asm.DWord))
		insns = append(insns, provider.ReadTaskField(asm.R8, "pid", provider.CtxTemp, 4)...)
		insns = append(insns, provider.ReadTaskField(asm.R8, "tgid", provider.CtxTemp+4, 4)...)
		insns = append(insns,
			asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.Word),
			asm.LoadMem(asm.R1, r, provider.CtxTemp+4, asm.Word))
		if pr.Name == "create" {
			insns = append(insns, asm.JNE.Reg(asm.R0, asm.R1, skip))
		} else {
			insns = append(insns, asm.JEq.Reg(asm.R0, asm.R1, skip))
		}
		if fill {
			insns = append(insns, provider.Clear(0, provider.XlateBuf)...)
			insns = append(insns, provider.FillTask(asm.R8)...)
		}
	case "signal-send":
		insns = append(insns,
			asm.LoadMem(asm.R0, ctx, 0, asm.DWord),
			asm.LSh.Imm(asm.R0, 32), asm.ArSh.Imm(asm.R0, 32),
			asm.StoreMem(r, provider.CtxArg0+16, asm.R0, asm.DWord))
		if fill {
			insns = append(insns, asm.LoadMem(asm.R8, ctx, 16, asm.DWord))
			insns = append(insns, provider.Clear(0, provider.XlateBuf)...)
			insns = append(insns, provider.FillTask(asm.R8)...)
		}
	case "signal-handle":
		insns = append(insns,
			asm.LoadMem(asm.R0, ctx, 0, asm.DWord),
			asm.LSh.Imm(asm.R0, 32), asm.ArSh.Imm(asm.R0, 32),
			asm.StoreMem(r, provider.CtxArg0, asm.R0, asm.DWord))
		if n.Args[2] {
			insns = append(insns, asm.LoadMem(asm.R8, ctx, 16, asm.DWord))
			insns = append(insns, provider.ReadField(asm.R8, "k_sigaction", "sa.sa_handler", provider.CtxArg0+16, 8)...)
		}
	}
	return insns, nil
}

// Guard implements provider.Provider: one probe per hook.
func (Provider) Guard(provider.Hook, []*provider.Probe, []*provider.Probe, string) asm.Instructions {
	return nil
}
