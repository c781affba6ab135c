package main

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/sym"
)

// startChild starts -c's command held at its first instruction: the child
// asks to be traced and execs the command, and the kernel stops it with
// SIGTRAP when the exec completes, before the command runs a single
// instruction. Its pid ($target) is known before compiling, and the probes
// (uprobes too, since the binary is mapped) go in before it is let go.
// Nothing of sonde's own runs in the child: no Go runtime threads making
// system calls that $target predicates would count.
func (d *driver) startChild() (int, error) {
	argv := splitCommand(d.cfg.command)
	if len(argv) == 0 {
		return 0, fmt.Errorf("failed to execute: -c names no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, fmt.Errorf("failed to execute %s: %v", argv[0], unwrapExec(err))
	}
	type started struct {
		pid int
		err error
	}
	ready := make(chan started)
	d.release = make(chan bool)
	d.advance = make(chan uint64)
	d.advanced = make(chan error)
	d.exited = make(chan struct{})
	// ptrace requests must come from the thread that is the tracer: one
	// locked goroutine starts the child, holds it and lets it go.
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd := exec.Command(path, argv[1:]...)
		cmd.Args[0] = argv[0]
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
		if err := cmd.Start(); err != nil {
			ready <- started{err: fmt.Errorf("failed to execute %s: %v", argv[0], unwrapExec(err))}
			return
		}
		pid := cmd.Process.Pid
		var ws unix.WaitStatus
		for {
			_, err := unix.Wait4(pid, &ws, 0, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil || !ws.Stopped() {
				ready <- started{err: fmt.Errorf("failed to start %s: %v", argv[0], err)}
				cmd.Wait()
				return
			}
			break
		}
		d.child = cmd
		ready <- started{pid: pid}
		run := false
		for held := true; held; {
			select {
			case run = <-d.release:
				held = false
			case addr := <-d.advance:
				d.advanced <- runTo(pid, addr)
			}
		}
		if !run {
			unix.Kill(pid, unix.SIGKILL)
			unix.PtraceDetach(pid)
			d.childStatus, _ = waitExit(pid)
			close(d.exited)
			return
		}
		d.childStatus = superviseChild(pid, d.onChildExit)
		close(d.exited)
	}()
	s := <-ready
	return s.pid, s.err
}

// superviseChild lets the held command run and stays its tracer until it
// exits, so that its address space can be read one last time when it
// exits (PTRACE_EVENT_EXIT stops it with its mappings intact): user stacks
// of a command that lived a few milliseconds still name their functions.
// Signals sent to the command are passed on untouched. Should the command
// be stopped by job control, which a PTRACE_TRACEME tracer cannot follow
// (no PTRACE_LISTEN), it is let go and stays stopped as it would untraced.
func superviseChild(pid int, onExit func(int)) unix.WaitStatus {
	if unix.PtraceSetOptions(pid, unix.PTRACE_O_TRACEEXIT|unix.PTRACE_O_TRACEEXEC) != nil {
		unix.PtraceDetach(pid)
		ws, _ := waitExit(pid)
		return ws
	}
	sig := 0
	for {
		if err := unix.PtraceCont(pid, sig); err != nil && err != unix.ESRCH {
			unix.PtraceDetach(pid)
		}
		sig = 0
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || ws.Exited() || ws.Signaled() {
			return ws
		}
		if !ws.Stopped() {
			continue
		}
		event := int(uint32(ws)>>16) & 0xff
		stop := ws.StopSignal()
		switch {
		case stop == unix.SIGTRAP && event == unix.PTRACE_EVENT_EXIT:
			if onExit != nil {
				onExit(pid)
			}
		case stop == unix.SIGTRAP && event != 0:
			// exec: nothing to pass on
		case stop == unix.SIGSTOP || stop == unix.SIGTSTP || stop == unix.SIGTTIN || stop == unix.SIGTTOU:
			var si unix.Siginfo
			if ptraceGetSiginfo(pid, &si) == unix.EINVAL {
				// group-stop: leave it stopped, untraced
				unix.PtraceDetach(pid)
				ws, _ := waitExit(pid)
				return ws
			}
			sig = int(stop)
		default:
			sig = int(stop)
		}
	}
}

// runTo lets the held command run until it reaches addr, with a
// breakpoint there, and holds it again at addr, the breakpoint gone.
// Signals that arrive meanwhile are passed on.
func runTo(pid int, addr uint64) error {
	word := make([]byte, 8)
	if _, err := unix.PtracePeekData(pid, uintptr(addr), word); err != nil {
		return fmt.Errorf("reading the code at %#x: %v", addr, err)
	}
	orig := append([]byte(nil), word...)
	word[0] = 0xcc // int3
	if _, err := unix.PtracePokeData(pid, uintptr(addr), word); err != nil {
		return fmt.Errorf("placing a breakpoint at %#x: %v", addr, err)
	}
	sig := 0
	for {
		if err := unix.PtraceCont(pid, sig); err != nil {
			return err
		}
		sig = 0
		var ws unix.WaitStatus
		if _, err := unix.Wait4(pid, &ws, unix.WALL, nil); err != nil && err != unix.EINTR {
			return err
		}
		if ws.Exited() || ws.Signaled() {
			return fmt.Errorf("the command ended before it reached its entry point")
		}
		if !ws.Stopped() {
			continue
		}
		if ws.StopSignal() != unix.SIGTRAP {
			sig = int(ws.StopSignal())
			continue
		}
		var regs unix.PtraceRegs
		if err := unix.PtraceGetRegs(pid, &regs); err != nil {
			return err
		}
		if regs.PC() != addr+1 {
			sig = int(unix.SIGTRAP)
			continue
		}
		regs.SetPC(addr)
		if _, err := unix.PtracePokeData(pid, uintptr(addr), orig); err != nil {
			return err
		}
		return unix.PtraceSetRegs(pid, &regs)
	}
}

// entryPoint reads the program entry point (AT_ENTRY) of pid from its
// auxiliary vector.
func entryPoint(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/auxv", pid))
	if err != nil {
		return 0, err
	}
	for i := 0; i+16 <= len(b); i += 16 {
		if binary.LittleEndian.Uint64(b[i:]) == 9 { // AT_ENTRY
			return binary.LittleEndian.Uint64(b[i+8:]), nil
		}
	}
	return 0, fmt.Errorf("no entry point in its auxiliary vector")
}

// advanceChild lets -c's held command run to where dtrace's evaltime
// option says probes are evaluated: "exec" leaves it at its exec;
// "preinit" and "postinit" run the dynamic linker so that the shared
// libraries are mapped (and theirs initialisers run), stopping at the
// program's entry point; "main" stops at main.
func (d *driver) advanceChild(evaltime string) error {
	if d.child == nil || d.advance == nil || evaltime == "exec" {
		return nil
	}
	pid := d.child.Process.Pid
	addr, err := entryPoint(pid)
	if err != nil {
		return err
	}
	if evaltime == "main" {
		if a, ok := mainAddr(pid); ok {
			addr = a
		}
	}
	d.advance <- addr
	return <-d.advanced
}

// mainAddr finds main in the executable of pid.
func mainAddr(pid int) (uint64, bool) {
	objs, err := sym.Objects(pid)
	if err != nil {
		return 0, false
	}
	for _, o := range objs {
		if !o.Main {
			continue
		}
		f, err := sym.OpenFile(o.Open)
		if err != nil {
			return 0, false
		}
		for _, s := range f.Resolve("main") {
			bias := uint64(0)
			if f.Type == elf.ET_DYN {
				bias = o.Base - f.FirstLoad()
			}
			return s.Value + bias, true
		}
	}
	return 0, false
}

// waitExit waits for pid to end.
func waitExit(pid int) (unix.WaitStatus, error) {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || ws.Exited() || ws.Signaled() {
			return ws, err
		}
	}
}

func ptraceGetSiginfo(pid int, si *unix.Siginfo) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_GETSIGINFO, uintptr(pid), 0, uintptr(unsafe.Pointer(si)), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func unwrapExec(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// releaseChild lets the held command run and returns a channel closed when
// it exits (nil without -c).
func (d *driver) releaseChild() <-chan struct{} {
	if d.child == nil {
		return nil
	}
	d.release <- true
	d.release = nil
	return d.exited
}

func (d *driver) killChild() {
	if d.child == nil {
		return
	}
	if d.release != nil {
		d.release <- false
		d.release = nil
	} else {
		unix.Kill(d.child.Process.Pid, unix.SIGKILL)
	}
	<-d.exited
}

// watchPid returns a channel closed when -p's process exits.
func (d *driver) watchPid() <-chan struct{} {
	if d.cfg.pid == 0 {
		return nil
	}
	done := make(chan struct{})
	fd, err := unix.PidfdOpen(d.cfg.pid, 0)
	go func() {
		defer close(done)
		if err == nil {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for {
				if n, _ := unix.Poll(fds, -1); n > 0 {
					return
				}
			}
		}
		for syscall.Kill(d.cfg.pid, 0) == nil {
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return done
}

// splitCommand splits a -c command into words (quotes group words).
func splitCommand(s string) []string {
	var out []string
	var cur []rune
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur = append(cur, r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, string(cur))
				cur, inWord = nil, false
			}
		default:
			cur, inWord = append(cur, r), true
		}
	}
	if inWord {
		out = append(out, string(cur))
	}
	return out
}

// exitNotice says how -c's command ended, as dtrace's prochandler does.
func exitNotice(pid int, ws unix.WaitStatus) string {
	switch {
	case ws.Signaled():
		return fmt.Sprintf("pid %d terminated by %s", pid, signalName(syscall.Signal(ws.Signal())))
	case ws.ExitStatus() != 0:
		return fmt.Sprintf("pid %d exited with status %d", pid, ws.ExitStatus())
	}
	return fmt.Sprintf("pid %d has exited", pid)
}

// signalName is a signal's name as proc_signame gives it (SIGKILL).
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return fmt.Sprintf("SIG#%d", int(s))
}
