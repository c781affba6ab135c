// Package proc is the proc provider: process and thread life cycle and
// signals, on the kernel's stable tracepoints (BTF-typed raw tracepoints).
// Every thread of a process fires the lwp-* probes, its first and last
// too, as in illumos: a process of n threads fires lwp-create, lwp-start
// and lwp-exit n times each.
//
//	exec-success  sched_process_exec, in the process after exec
//	lwp-exit      sched_process_exit, in every thread that exits
//	exit          sched_process_exit of the last thread, after its
//	              lwp-exit; args[0] is the reason (CLD_EXITED 1,
//	              CLD_KILLED 2, CLD_DUMPED 3)
//
//	              The last thread is the one whose exit took the
//	              process's count of live threads to 0: the tracepoint's
//	              group_dead (Linux 6.16). Before 6.16 the tracepoint has
//	              no group_dead and the count is read at the tracepoint,
//	              where two threads that exit at once can both find it 0
//	              and both fire exit.
//
//	lwp-create    sched_process_fork, in the creator, for every new
//	              thread (a new process's first one too, before create);
//	              args[0] lwpsinfo_t, args[1] psinfo_t of the thread:
//	              for a new process's first thread, the new process
//	create        sched_process_fork of a new process, in the parent,
//	              after lwp-create; args[0] psinfo_t of the child
//	signal-send   signal_generate, in the sender; args[0] lwpsinfo_t,
//	              args[1] psinfo_t of the target, args[2] the signal;
//	              not for a signal the target ignores (signal-discard)
//	              nor one a full real-time queue refuses
//	signal-discard signal_generate of a signal the target ignores, in
//	              the sender; the arguments of signal-send
//	signal-handle signal_deliver, in the receiving thread; args[0] the
//	              signal, args[1] 0 (no siginfo_t copy), args[2] the
//	              handler's address. Where a process dies of a signal
//	              it does not catch, Linux fires signal_deliver for
//	              SIGKILL in each of its threads: args[0] is the signal
//	              that killed it, in each thread. Where threads die of
//	              exit_group(2), an exec or a core dump in another one,
//	              no signal is handled and signal-handle does not fire;
//	              nor where the handler is SIG_IGN (Linux delivers the
//	              signals a traced process ignores, as under sonde -c).
//	start         sched_process_fork of a new process, for the child:
//	              pid, tid, execname, curpsinfo and self-> are the new
//	              process's (the tracepoint fires in the parent, before
//	              the child first runs; DTrace fires in the child)
//	lwp-start     sched_process_fork, for every new thread (a new
//	              process's first one too, after start): pid, tid,
//	              execname, curpsinfo and self-> are the thread's
//	exec          sys_enter of execve or execveat, in the process about
//	              to exec; args[0] the path (a user address: stringof()
//	              and copyinstr() read it)
//	exec-failure  sys_exit of execve or execveat that failed; args[0] the
//	              errno
//	signal-clear  sys_exit of rt_sigtimedwait that took a pending signal;
//	              args[0] the signal
//
// The probes of one tracepoint fire in the order of their local IDs:
// codegen attaches a tracepoint's programs in probe ID order and the
// kernel runs them in the order attached. defs lists lwp-exit before exit,
// lwp-create before create and start before lwp-start for that reason.
//
// exec, exec-failure and signal-clear match the call's number in the
// table of its mode: a 32-bit call (int $0x80, sysenter, a 32-bit
// process) has i386's numbers, which name other calls in amd64's table
// (i386's timerfd_create is amd64's execveat). A 32-bit process's
// rt_sigtimedwait_time64 fires signal-clear too.
package proc

import (
	"fmt"
	"sync"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/syscalls"
)

// Provider implements provider.Provider.
type Provider struct{ provider.OneProbePerHook }

// Name implements provider.Provider.
func (Provider) Name() string { return "proc" }

var (
	psArg  = provider.Arg{Type: "struct task_struct *", XType: "psinfo_t *", Struct: provider.PsinfoT}
	lwpArg = provider.Arg{Type: "struct task_struct *", XType: "lwpsinfo_t *", Struct: provider.LwpsinfoT}
	intArg = provider.Arg{Type: "int"}
)

var defs = []provider.HookProbe{
	{Name: "exec-success", Tracepoint: "sched_process_exec"},
	// in a tracepoint's order of firing (the package comment)
	{Name: "lwp-exit", Tracepoint: "sched_process_exit"},
	{Name: "exit", Tracepoint: "sched_process_exit", Args: []provider.Arg{intArg}},
	{Name: "lwp-create", Tracepoint: "sched_process_fork", Args: []provider.Arg{lwpArg, psArg}},
	{Name: "create", Tracepoint: "sched_process_fork", Args: []provider.Arg{psArg}},
	{Name: "signal-send", Tracepoint: "signal_generate", Args: []provider.Arg{lwpArg, psArg, intArg}},
	{Name: "signal-handle", Tracepoint: "signal_deliver", Args: []provider.Arg{intArg, {Type: "siginfo_t *"}, {Type: "void (*)(void)"}}},
	{Name: "start", Tracepoint: "sched_process_fork", Subject: 2},     // the child
	{Name: "lwp-start", Tracepoint: "sched_process_fork", Subject: 2}, // the thread
	{Name: "exec", Tracepoint: "sys_enter", Args: []provider.Arg{{Type: "const char __user *"}}},
	{Name: "exec-failure", Tracepoint: "sys_exit", Args: []provider.Arg{intArg}},
	{Name: "signal-clear", Tracepoint: "sys_exit", Args: []provider.Arg{intArg}},
	{Name: "signal-discard", Tracepoint: "signal_generate", Args: []provider.Arg{lwpArg, psArg, intArg}},
}

// signal_generate's results (include/trace/events/signal.h).
const (
	traceSignalIgnored      = 1
	traceSignalOverflowFail = 3
)

// kernel is what the prologues need to know of the running kernel, from
// its BTF, read once (absent when it cannot be read: the programs then
// fail to load, and say why).
var kernel = sync.OnceValue(func() (k struct{ groupDead, groupExecTask, coreState bool }) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return k
	}
	// sched_process_exit's group_dead (Linux 6.16): a third parameter
	// of btf_trace_sched_process_exit, after the context and the task
	var td *btf.Typedef
	if spec.TypeByName("btf_trace_sched_process_exit", &td) == nil {
		if ptr, ok := td.Type.(*btf.Pointer); ok {
			proto, ok := ptr.Target.(*btf.FuncProto)
			k.groupDead = ok && len(proto.Params) == 3
		}
	}
	// signal_struct's group_exec_task (Linux 5.17) and core_state (5.16)
	var st *btf.Struct
	if spec.TypeByName("signal_struct", &st) == nil {
		for _, m := range st.Members {
			k.groupExecTask = k.groupExecTask || m.Name == "group_exec_task"
			k.coreState = k.coreState || m.Name == "core_state"
		}
	}
	return k
})

// groupDeadArg reports whether sched_process_exit passes group_dead; a
// variable, for the tests to try the other way.
var groupDeadArg = func() bool { return kernel().groupDead }

// NumLocal is the number of probe IDs the provider uses.
func NumLocal() uint32 { return uint32(len(defs)) }

// Probes implements provider.Provider.
func (p Provider) Probes(d provider.Desc) ([]*provider.Probe, error) {
	return provider.HookProbes(p, defs, d), nil
}

// Prologue implements provider.Provider.
func (Provider) Prologue(h provider.Hook, probes []*provider.Probe, n provider.Needs, skip string) (asm.Instructions, error) {
	pr := probes[0]
	r, ctx := provider.RegScratch, provider.RegCtx
	insns := provider.PrologueStart(pr.ID)
	fill := n.Args[0] || n.Args[1]
	switch pr.Name {
	case "lwp-exit":
		// every thread, the last one too (illumos's proc_exit fires
		// lwp-exit, then exit)
	case "exit":
		// the task is current
		insns = append(insns, asm.LoadMem(asm.R8, ctx, 0, asm.DWord))
		if groupDeadArg() {
			// R0 = group_dead, true in the one thread that took
			// signal->live to 0
			insns = append(insns, asm.LoadMem(asm.R0, ctx, 8, asm.DWord), asm.And.Imm(asm.R0, 0xff), asm.Xor.Imm(asm.R0, 1))
		} else {
			// R0 = signal->live, read at the tracepoint: two threads
			// exiting at once can both read 0
			insns = append(insns, provider.ReadTaskField(asm.R8, "signal", provider.CtxTemp, 8)...)
			insns = append(insns, asm.LoadMem(asm.R4, r, provider.CtxTemp, asm.DWord))
			insns = append(insns, provider.ReadField(asm.R4, "signal_struct", "live", provider.CtxTemp, 4)...)
			insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.Word))
		}
		// R0 is 0 in the last thread
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
	case "create", "start":
		// the child is a new process when its pid is its tgid
		insns = append(insns, asm.LoadMem(asm.R8, ctx, 8, asm.DWord))
		insns = append(insns, provider.ReadTaskField(asm.R8, "pid", provider.CtxTemp, 4)...)
		insns = append(insns, provider.ReadTaskField(asm.R8, "tgid", provider.CtxTemp+4, 4)...)
		insns = append(insns,
			asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.Word),
			asm.LoadMem(asm.R1, r, provider.CtxTemp+4, asm.Word),
			asm.JNE.Reg(asm.R0, asm.R1, skip))
		if fill && pr.Name == "create" {
			insns = append(insns, provider.FillTaskArg(1)...)
		}
	case "lwp-create":
		// every new thread, a new process's first one too (illumos's
		// fork creates the child's lwp with lwp_create); its
		// lwpsinfo_t and its process's psinfo_t
		if fill {
			insns = append(insns, provider.FillTaskArg(1)...)
		}
	case "lwp-start":
		// every new thread, as lwp-create
	case "exec":
		// sys_enter(regs, id): execve's path is its first argument,
		// execveat's its second; a 32-bit call's are in ebx and ecx
		// (4 bytes; the upper ones are PrologueStart's zeros)
		insns = append(insns, asm.LoadMem(asm.R0, ctx, 8, asm.DWord))
		disp, err := bySyscall([]sysCase{
			{"execve", "proc_execve", "proc_execve32"},
			{"execveat", "proc_execveat", "proc_execveat32"},
		}, skip)
		if err != nil {
			return nil, err
		}
		insns = append(insns, disp...)
		for _, c := range []struct {
			label, reg string
			size       int32
		}{{"proc_execve", "di", 8}, {"proc_execveat", "si", 8}, {"proc_execve32", "bx", 4}, {"proc_execveat32", "cx", 4}} {
			insns = append(insns, asm.LoadMem(asm.R8, ctx, 0, asm.DWord).WithSymbol(c.label))
			insns = append(insns, provider.ReadField(asm.R8, "pt_regs", c.reg, provider.CtxArg0, c.size)...)
			insns = append(insns, asm.Ja.Label("proc_path"))
		}
		insns = append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("proc_path"))
	case "exec-failure", "signal-clear":
		// sys_exit(regs, ret): the call is regs->orig_ax
		insns = append(insns, asm.LoadMem(asm.R8, ctx, 0, asm.DWord))
		insns = append(insns, provider.ReadField(asm.R8, "pt_regs", "orig_ax", provider.CtxTemp, 8)...)
		insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.DWord))
		cases := []sysCase{{"execve", "proc_ret", "proc_ret"}, {"execveat", "proc_ret", "proc_ret"}}
		if pr.Name == "signal-clear" {
			// 32-bit processes have a call with 64-bit times too
			cases = []sysCase{{"rt_sigtimedwait", "proc_ret", "proc_ret"}, {"rt_sigtimedwait_time64", "", "proc_ret"}}
		}
		disp, err := bySyscall(cases, skip)
		if err != nil {
			return nil, err
		}
		insns = append(insns, disp...)
		insns = append(insns, asm.LoadMem(asm.R1, ctx, 8, asm.DWord).WithSymbol("proc_ret"))
		if pr.Name == "exec-failure" {
			insns = append(insns, asm.JSGE.Imm(asm.R1, 0, skip), asm.Neg.Imm(asm.R1, 0))
		} else {
			insns = append(insns, asm.JSLE.Imm(asm.R1, 0, skip))
		}
		insns = append(insns, asm.StoreMem(r, provider.CtxArg0, asm.R1, asm.DWord))
	case "signal-send", "signal-discard":
		// signal_generate(sig, info, task, group, result): discarded
		// when the target ignores the signal, not sent at all when a
		// real-time signal's queue is full
		insns = append(insns, asm.LoadMem(asm.R0, ctx, 32, asm.DWord))
		if pr.Name == "signal-send" {
			insns = append(insns,
				asm.JEq.Imm32(asm.R0, traceSignalIgnored, skip),
				asm.JEq.Imm32(asm.R0, traceSignalOverflowFail, skip))
		} else {
			insns = append(insns, asm.JNE.Imm32(asm.R0, traceSignalIgnored, skip))
		}
		insns = append(insns, provider.HookArg32(0, provider.CtxArg0+16, true)...)
		if fill {
			insns = append(insns, provider.FillTaskArg(2)...)
		}
	case "signal-handle":
		// signal_deliver(sig, info, ka). Without info, the thread takes
		// SIGKILL because its process is dying: of a signal it did not
		// catch (signal->group_exit_code, which args[0] reports), or of
		// exit_group(2) or an exec in another thread, or of a core dump
		// whose thread fired with the signal, where no signal is
		// handled and the probe does not fire.
		insns = append(insns,
			// info through the scratch area: the verifier takes a
			// pointer argument for never NULL, and would make the
			// test below always jump
			asm.LoadMem(asm.R0, ctx, 8, asm.DWord),
			asm.StoreMem(r, provider.CtxTemp, asm.R0, asm.DWord),
			asm.LoadMem(asm.R0, r, provider.CtxTemp, asm.DWord),
			asm.JNE.Imm(asm.R0, 0, "proc_sigtaken"),
			asm.FnGetCurrentTask.Call(),
			asm.Mov.Reg(asm.R8, asm.R0),
		)
		insns = append(insns, provider.ReadTaskField(asm.R8, "signal", provider.CtxTemp, 8)...)
		for _, f := range []struct {
			name string
			has  bool
		}{{"group_exec_task", kernel().groupExecTask}, {"core_state", kernel().coreState}} {
			if !f.has {
				continue
			}
			insns = append(insns, asm.LoadMem(asm.R4, r, provider.CtxTemp, asm.DWord))
			insns = append(insns, provider.ReadField(asm.R4, "signal_struct", f.name, provider.CtxTemp+8, 8)...)
			insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxTemp+8, asm.DWord), asm.JNE.Imm(asm.R0, 0, skip))
		}
		insns = append(insns, asm.LoadMem(asm.R4, r, provider.CtxTemp, asm.DWord))
		insns = append(insns, provider.ReadField(asm.R4, "signal_struct", "group_exit_code", provider.CtxTemp+8, 4)...)
		insns = append(insns,
			asm.LoadMem(asm.R0, r, provider.CtxTemp+8, asm.Word),
			asm.And.Imm(asm.R0, 0x7f), // exit_group's status is in the second byte
			asm.JEq.Imm(asm.R0, 0, skip),
			asm.StoreMem(r, provider.CtxArg0, asm.R0, asm.DWord),
			asm.Ja.Label("proc_sighandler"),
		)
		taken := provider.HookArg32(0, provider.CtxArg0, true)
		taken[0] = taken[0].WithSymbol("proc_sigtaken")
		insns = append(insns, taken...)
		// the handler; SIG_IGN only where the process is traced, which
		// makes Linux deliver the signals it ignores (sonde -c): they
		// are not handled
		insns = append(insns, asm.LoadMem(asm.R8, ctx, 16, asm.DWord).WithSymbol("proc_sighandler"))
		insns = append(insns, provider.ReadField(asm.R8, "k_sigaction", "sa.sa_handler", provider.CtxArg0+16, 8)...)
		insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxArg0+16, asm.DWord), asm.JEq.Imm(asm.R0, 1, skip))
		if !n.Args[2] {
			insns = append(insns, provider.StoreImm64(r, provider.CtxArg0+16, 0))
		}
	}
	return insns, nil
}

// sysCase is a system call a probe on raw_syscalls' sys_enter or sys_exit
// fires for, and where its code starts when the call is native and when it
// is a 32-bit one ("": the probe does not fire for it).
type sysCase struct{ name, native, compat string }

// bySyscall emits code that jumps to the label of the call whose number
// is in R0, in the table of the calling mode, and to skip for any other
// call. The number is first checked against every number of the cases in
// either table, so that most calls are skipped without the helper call the
// mode costs. CtxTemp+56 is used; R0-R5 do not survive.
func bySyscall(cases []sysCase, skip string) (asm.Instructions, error) {
	r := provider.RegScratch
	type target struct {
		nr    int64
		label string
	}
	lookup := func(t *syscalls.Table, name, label string, to *[]target) error {
		if label == "" || t == nil {
			return nil
		}
		c, ok := t.Lookup(name)
		if !ok || c.Name != name {
			return fmt.Errorf("proc: no system call %s on %s", name, t.Arch())
		}
		*to = append(*to, target{int64(c.Nr), label})
		return nil
	}
	var native, compat []target
	for _, c := range cases {
		if err := lookup(syscalls.Native(), c.name, c.native, &native); err != nil {
			return nil, err
		}
		if err := lookup(syscalls.Compat(), c.name, c.compat, &compat); err != nil {
			return nil, err
		}
	}
	jumps := func(ts []target) asm.Instructions {
		var insns asm.Instructions
		for _, t := range ts {
			insns = append(insns, asm.JEq.Imm(asm.R0, int32(t.nr), t.label))
		}
		return append(insns, asm.Ja.Label(skip))
	}
	if syscalls.Compat() == nil {
		return jumps(native), nil
	}
	var insns asm.Instructions
	seen := map[int64]bool{}
	for _, t := range append(append([]target(nil), native...), compat...) {
		if !seen[t.nr] {
			seen[t.nr] = true
			insns = append(insns, asm.JEq.Imm(asm.R0, int32(t.nr), "proc_sys"))
		}
	}
	insns = append(insns,
		asm.Ja.Label(skip),
		asm.StoreMem(r, provider.CtxTemp+56, asm.R0, asm.DWord).WithSymbol("proc_sys"))
	insns = append(insns, provider.JumpIfCompatSyscall("proc_sys32")...)
	insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxTemp+56, asm.DWord))
	insns = append(insns, jumps(native)...)
	insns = append(insns, asm.LoadMem(asm.R0, r, provider.CtxTemp+56, asm.DWord).WithSymbol("proc_sys32"))
	return append(insns, jumps(compat)...), nil
}

// Attributes implements provider.Attributed: illumos's for proc.
func (Provider) Attributes() provider.Pattr { return provider.StableSDTAttr }
