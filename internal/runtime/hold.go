package runtime

import (
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// HoldSignal is the signal a Hold sends. Its default action is to be
// ignored: should sonde die between the uprobe's firing and its tracer
// taking the signal out, the command gets it and carries on unharmed
// (no program has a handler for it at its entry point, before any of
// its code has run).
const HoldSignal = unix.SIGURG

// Hold places a uprobe at offset in the file path that sends HoldSignal
// to a thread of process pid when it gets there: the process's tracer
// then sees it stop there, without a byte of its memory or a register
// written by sonde (a breakpoint written with ptrace, or a debug register
// set, would stay behind and kill the process if sonde died before
// removing it). The kernel removes the uprobe when the returned closer
// is closed, or when sonde dies.
func Hold(path string, offset uint64, pid int) (io.Closer, error) {
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name: "sonde_hold", Type: ebpf.Kprobe, License: "GPL",
		Instructions: holdInsns(pid),
	})
	if err != nil {
		return nil, fmt.Errorf("loading the program that holds the command: %w", err)
	}
	defer prog.Close() // the link keeps it
	ex, err := link.OpenExecutable(path)
	if err != nil {
		return nil, err
	}
	l, err := ex.Uprobe("", prog, &link.UprobeOptions{Address: offset, PID: pid})
	if err != nil {
		return nil, fmt.Errorf("placing a uprobe at %s+%#x: %w", path, offset, err)
	}
	return l, nil
}

// holdInsns send HoldSignal to the current thread if it is of process pid.
func holdInsns(pid int) asm.Instructions {
	return asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.JNE.Imm(asm.R0, int32(pid), "out"),
		asm.Mov.Imm(asm.R1, int32(HoldSignal)),
		asm.FnSendSignalThread.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
}

// HoldBefore is Hold with a hardware breakpoint perf event at the virtual
// address addr of process pid: the event fires before the instruction at
// addr executes, so the process stops at addr itself. The breakpoint is
// the perf event's, owned by sonde's file descriptor: the kernel removes
// it when that is closed or sonde dies (unlike a breakpoint set in the
// debug registers with ptrace, which stays with the thread).
func HoldBefore(addr uint64, pid int) (io.Closer, error) {
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name: "sonde_hold", Type: ebpf.PerfEvent, License: "GPL",
		Instructions: holdInsns(pid),
	})
	if err != nil {
		return nil, fmt.Errorf("loading the program that holds the command: %w", err)
	}
	defer prog.Close() // the event keeps it
	attr := unix.PerfEventAttr{
		Type:    unix.PERF_TYPE_BREAKPOINT,
		Size:    uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Sample:  1,
		Bits:    unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv | unix.PerfBitDisabled,
		Bp_type: 4, // HW_BREAKPOINT_X
		Ext1:    addr,
		Ext2:    8, // sizeof(long), as execute breakpoints must be
	}
	fd, err := unix.PerfEventOpen(&attr, pid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("placing a breakpoint at %#x: %w", addr, err)
	}
	f := os.NewFile(uintptr(fd), "hold")
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, prog.FD()); err != nil {
		f.Close()
		return nil, fmt.Errorf("attaching the holding program: %w", err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("enabling the breakpoint: %w", err)
	}
	return f, nil
}
