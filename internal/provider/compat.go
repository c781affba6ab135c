package provider

import "github.com/cilium/ebpf/asm"

// tsCompat is x86's TS_COMPAT, the bit of thread_info.status that marks a
// 32-bit system call in progress (int $0x80, sysenter, a 32-bit process).
// The kernel sets it at entry and clears it on the way back to user mode,
// after the sys_exit tracepoint has fired.
const tsCompat = 0x0002

// JumpIfCompatSyscall emits code that jumps to label when the current
// thread is in a 32-bit system call, whose number raw_syscalls' sys_enter
// and sys_exit (and pt_regs.orig_ax) give in i386's table
// (syscalls.Compat()), not amd64's: i386's getpid (20) is amd64's writev.
// Every probe that matches a system call by number checks this first.
// Only for x86-64 (where syscalls.Compat() is not nil). It calls a helper:
// R0-R5 do not survive it.
func JumpIfCompatSyscall(label string) asm.Instructions {
	// bpf_get_current_task_btf's pointer is loaded from directly (the
	// verifier checks the access against BTF): no helper call to read.
	// The offset is thread_info's own: thread_info is task_struct's first
	// member on x86-64 (the kernel's current_thread_info() is current,
	// cast), and looking up struct thread_info in the kernel's BTF takes
	// 0.1 ms where task_struct, with every type it reaches, takes 17 ms of
	// a syscall script's start.
	return asm.Instructions{
		asm.FnGetCurrentTaskBtf.Call(),
		WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), "thread_info", "status"),
		asm.Add.Reg(asm.R0, asm.R1),
		asm.LoadMem(asm.R2, asm.R0, 0, asm.Word),
		asm.JSet.Imm(asm.R2, tsCompat, label),
	}
}
