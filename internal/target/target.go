// Package target is process control for the process $target names: a
// command sonde starts (-c), held under ptrace until its probes are in
// place and then let go, followed to its exit; or a process already
// running (-p), watched until it exits. Whatever instant the tracer dies
// at, the command runs untouched or has not started: see Start.
package target

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	sonderuntime "github.com/sonde-trace/sonde/internal/runtime"
	"github.com/sonde-trace/sonde/internal/sym"
)

// heldArg0 is the argv[0] under which sonde runs as the holder of -c's
// command (see holdExec). Any program that uses Start holds its commands
// this way: its own executable is run again with this name.
const heldArg0 = "sonde (holding -c's command)"

func init() {
	if len(os.Args) > 2 && os.Args[0] == heldArg0 {
		holdExec(os.Args[1], os.Args[2:])
	}
}

// holdExec is the first life of -c's command: sonde run again, which says
// it is ready on descriptor 4, waits for a byte on descriptor 3 and then
// executes the command in its place.
// Meanwhile the sonde that started it has attached to it as its tracer
// (PTRACE_SEIZE, asking to stop at the exec). If that sonde dies first, the
// pipe says so (end of file) and the command is executed all the same,
// untraced. It runs in an init function, on the main thread: the thread
// the tracer attached to.
func holdExec(path string, argv []string) {
	var b [1]byte
	unix.Write(4, b[:]) // ready: this process has executed sonde
	unix.Close(4)
	for {
		if _, err := unix.Read(3, b[:]); err != unix.EINTR {
			break
		}
	}
	unix.Close(3)
	err := unix.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "sonde: failed to execute %s: %v\n", argv[0], err)
	os.Exit(127)
}

// Process is the traced process.
type Process struct {
	pid int
	cmd *exec.Cmd // -c's command; nil for a process grabbed (-p)
	// release lets -c's held command go (true) or kills it (false);
	// exited is closed when it has exited.
	release chan bool
	exited  chan struct{}
	// advance runs the held command to an address; advanced says how.
	advance  chan uint64
	advanced chan error
	// status is how -c's command ended, once exited is closed.
	status unix.WaitStatus
	// OnExit, when set before Release, runs as -c's command exits, its
	// address space intact (to read its mappings a last time).
	OnExit func(pid int)
}

// PID is the process ID, $target.
func (d *Process) PID() int { return d.pid }

// Grab is -p: a process already running, which is not stopped nor
// traced; it has no evaltime to advance to.
func Grab(pid int) (*Process, error) {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return nil, fmt.Errorf("failed to grab pid %d: no such process", pid)
	}
	return &Process{pid: pid}, nil
}

// Start starts a command held at its first instruction: sonde is
// its tracer, and the kernel stops it when its exec completes, before it
// runs a single instruction. Its pid ($target) is known before compiling,
// and the probes (uprobes too, since the binary is mapped) go in before it
// is let go. Nothing of sonde's own runs in the child once it is traced
// and probes are placed: no Go runtime threads making system calls that
// $target predicates would count.
//
// Should sonde die at any instant, the command runs untouched (or has not
// been started): the stops that hold it are ptrace event and system call
// stops, which a dying tracer's kernel simply resumes, or a stop for
// HoldSignal, whose default action is to be ignored; no byte of its memory
// or register is ever written (the breakpoint that holds it at its entry
// point is a perf event's, removed with sonde's file descriptor); and no
// PTRACE_O_EXITKILL is set.
func Start(command string) (*Process, error) {
	argv := splitCommand(command)
	if len(argv) == 0 {
		return nil, fmt.Errorf("failed to execute: -c names no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("failed to execute %s: %w", argv[0], unwrapExec(err))
	}
	type started struct {
		pid int
		err error
	}
	ready := make(chan started)
	d := &Process{release: make(chan bool), advance: make(chan uint64), advanced: make(chan error), exited: make(chan struct{})}
	// ptrace requests must come from the thread that is the tracer: one
	// locked goroutine starts the child, holds it and lets it go.
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd, err := startHeld(path, argv)
		if err != nil {
			ready <- started{err: err}
			return
		}
		pid := cmd.Process.Pid
		d.cmd, d.pid = cmd, pid
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
			d.status = killHeld(pid)
			close(d.exited)
			return
		}
		d.status = superviseChild(pid, d.OnExit)
		close(d.exited)
	}()
	if s := <-ready; s.err != nil {
		return nil, s.err
	}
	return d, nil
}

// ptraceOptions are set when sonde attaches to the command: stops at exec
// and exit are ptrace events, which a tracer's death simply resumes, and
// system call stops are told apart from SIGTRAP (with TRACESYSGOOD, a
// system call stop left by a dying tracer sends no signal; without, it
// would send SIGTRAP). No PTRACE_O_EXITKILL: sonde's death must not kill.
const ptraceOptions = unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACESYSGOOD | unix.PTRACE_O_TRACEEXIT

// startHeld starts the command through holdExec, attaches to it, lets it
// execute the command and holds it where its execve returns, after the
// system call's own return was reported (a $target predicate on
// syscall:::return sees nothing of the exec, as with dtrace).
func startHeld(path string, argv []string) (*exec.Cmd, error) {
	fail := func(err error) error { return fmt.Errorf("failed to execute %s: %w", argv[0], err) }
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fail(err)
	}
	defer w.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		r.Close()
		return nil, fail(err)
	}
	defer readyR.Close()
	cmd := exec.Command("/proc/self/exe", append([]string{path}, argv...)...)
	cmd.Args[0] = heldArg0
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{r, readyW}
	err = cmd.Start()
	r.Close()
	readyW.Close()
	if err != nil {
		return nil, fail(unwrapExec(err))
	}
	pid := cmd.Process.Pid
	// Attach once its own exec is done, so that the one exec it is
	// stopped at is the command's.
	if _, err := readyR.Read(make([]byte, 1)); err != nil {
		cmd.Wait()
		return nil, fail(fmt.Errorf("it ended before it started"))
	}
	if _, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(pid), 0, ptraceOptions, 0, 0); e != 0 {
		w.Close() // it executes the command untraced
		cmd.Wait()
		return nil, fail(fmt.Errorf("attaching to it: %v", e))
	}
	w.Write([]byte{0})
	if err := holdAtExec(pid); err != nil {
		killHeld(pid)
		cmd.Wait() // reaped already: this releases its resources
		return nil, fail(err)
	}
	return cmd, nil
}

// holdAtExec waits for the traced holder to execute the command, and runs
// it to the return of its execve.
func holdAtExec(pid int) error {
	sig := 0
	for {
		ws, err := waitStop(pid)
		if err != nil {
			return err
		}
		if ws.Exited() || ws.Signaled() {
			return fmt.Errorf("it ended before it started")
		}
		switch event := ptraceEvent(ws); {
		case event == unix.PTRACE_EVENT_EXEC:
			if err := unix.PtraceSyscall(pid, 0); err != nil {
				return err
			}
			continue
		case ws.StopSignal() == unix.SIGTRAP|0x80:
			return nil // held at the return of execve
		case event != 0:
			sig = 0 // a group-stop, or the holder's exit
		default:
			sig = int(ws.StopSignal())
		}
		if err := unix.PtraceCont(pid, sig); err != nil {
			return err
		}
	}
}

// superviseChild lets the held command run and stays its tracer until it
// exits, so that its address space can be read one last time when it
// exits (PTRACE_EVENT_EXIT stops it with its mappings intact): user stacks
// of a command that lived a few milliseconds still name their functions.
// Signals sent to the command are passed on untouched. Should the command
// be stopped by job control, it is let go and stays stopped as it would
// untraced.
func superviseChild(pid int, onExit func(int)) unix.WaitStatus {
	sig := 0
	for {
		if err := unix.PtraceCont(pid, sig); err != nil && err != unix.ESRCH {
			unix.PtraceDetach(pid)
		}
		sig = 0
		ws, err := waitStop(pid)
		if err != nil || ws.Exited() || ws.Signaled() {
			return ws
		}
		event := ptraceEvent(ws)
		switch {
		case event == unix.PTRACE_EVENT_EXIT:
			if onExit != nil {
				onExit(pid)
			}
		case event == unix.PTRACE_EVENT_STOP:
			// group-stop: leave it stopped, untraced
			unix.PtraceDetach(pid)
			ws, _ := waitExit(pid)
			return ws
		case event > 0:
			// exec: nothing to pass on
		default:
			sig = int(ws.StopSignal())
		}
	}
}

// waitStop waits for pid to stop or end, without taking the signal of a
// signal-delivery stop out of it: should sonde die before passing it on,
// the kernel delivers it to the command as if it had never been traced.
// An ended pid is reaped.
func waitStop(pid int) (unix.WaitStatus, error) {
	for {
		var si unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &si, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT|unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		status := int(*(*int32)(unsafe.Pointer(uintptr(unsafe.Pointer(&si)) + 24))) // si_status
		switch si.Code {
		case 4, 5: // CLD_TRAPPED, CLD_STOPPED
			return unix.WaitStatus(status<<8 | 0x7f), nil
		}
		return waitExit(pid)
	}
}

// killHeld kills the held command and reaps it, letting it through the
// exit stop it may make on its way out.
func killHeld(pid int) unix.WaitStatus {
	unix.Kill(pid, unix.SIGKILL)
	for {
		ws, err := waitStop(pid)
		if err != nil || ws.Exited() || ws.Signaled() {
			return ws
		}
		unix.PtraceCont(pid, 0)
	}
}

// ptraceEvent is the PTRACE_EVENT_* of a ptrace stop, 0 for none.
func ptraceEvent(ws unix.WaitStatus) int {
	return int(uint32(ws)>>16) & 0xff
}

// runTo lets the held command run until it reaches addr and holds it
// there again: a breakpoint perf event at addr (runtime.HoldBefore) sends
// it HoldSignal, which its tracer takes out. Other signals that arrive
// meanwhile are passed on.
func runTo(pid int, addr uint64) error {
	sig := 0
	for {
		if err := unix.PtraceCont(pid, sig); err != nil {
			return err
		}
		sig = 0
		ws, err := waitStop(pid)
		if err != nil {
			return err
		}
		if ws.Exited() || ws.Signaled() {
			return fmt.Errorf("the command ended before it reached its entry point")
		}
		if ptraceEvent(ws) != 0 {
			continue
		}
		sig = int(ws.StopSignal())
		if sig != int(sonderuntime.HoldSignal) {
			continue
		}
		var si unix.Siginfo
		if ptraceGetSiginfo(pid, &si) == nil && si.Code == 0x80 { // SI_KERNEL: from the hold
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WALL, nil) // consume the stop: the signal is taken out
			return nil
		}
	}
}

// holdAt places the uprobe that stops pid at addr (runtime.Hold): at the
// file and offset that addr maps.
func holdAt(pid int, addr uint64) (io.Closer, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, " ", 6)
		if len(f) < 6 {
			continue
		}
		path := strings.TrimSpace(f[5])
		if !strings.HasPrefix(path, "/") {
			continue
		}
		var lo, hi, off uint64
		if _, err := fmt.Sscanf(f[0], "%x-%x", &lo, &hi); err != nil || addr < lo || addr >= hi {
			continue
		}
		if _, err := fmt.Sscanf(f[2], "%x", &off); err != nil {
			continue
		}
		return sonderuntime.Hold(path, addr-lo+off, pid)
	}
	return nil, fmt.Errorf("no file is mapped at %#x", addr)
}

// entryPoint reads the program entry point (AT_ENTRY) of pid from its
// auxiliary vector, whose entries are pairs of the process's words: 4
// bytes each in a 32-bit process.
func entryPoint(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/auxv", pid))
	if err != nil {
		return 0, err
	}
	word := 8
	if f, err := elf.Open(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
		if f.Class == elf.ELFCLASS32 {
			word = 4
		}
		f.Close()
	}
	at := func(i int) uint64 {
		if word == 4 {
			return uint64(binary.LittleEndian.Uint32(b[i:]))
		}
		return binary.LittleEndian.Uint64(b[i:])
	}
	for i := 0; i+2*word <= len(b); i += 2 * word {
		if at(i) == 9 { // AT_ENTRY
			return at(i + word), nil
		}
	}
	return 0, fmt.Errorf("no entry point in its auxiliary vector")
}

// Advance lets -c's held command run to where dtrace's evaltime option
// says probes are evaluated: "exec" leaves it at its exec; "preinit" and
// "postinit" run the dynamic linker so that the shared libraries are
// mapped (and their initialisers run), stopping at the program's entry
// point; "main" stops at main. A grabbed process has nothing to do.
func (d *Process) Advance(evaltime string) error {
	if d.cmd == nil || d.advance == nil || evaltime == "exec" {
		return nil
	}
	pid := d.pid
	addr, err := entryPoint(pid)
	if err != nil {
		return err
	}
	if evaltime == "main" {
		if a, ok := mainAddr(pid); ok {
			addr = a
		}
	}
	hold, err := sonderuntime.HoldBefore(addr, pid)
	if err != nil {
		// No hardware breakpoint to be had: a uprobe, which holds it
		// after the instruction at addr.
		if hold, err = holdAt(pid, addr); err != nil {
			return err
		}
	}
	defer hold.Close()
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

// Release lets the held command run, or for a grabbed process starts
// watching it, and returns a channel closed when it exits.
func (d *Process) Release() <-chan struct{} {
	if d.cmd == nil {
		return d.watch()
	}
	d.release <- true
	d.release = nil
	return d.exited
}

// Kill kills -c's command (held or running) and reaps it; a grabbed
// process is left alone.
func (d *Process) Kill() {
	if d.cmd == nil {
		return
	}
	if d.release != nil {
		d.release <- false
		d.release = nil
	} else {
		unix.Kill(d.pid, unix.SIGKILL)
	}
	<-d.exited
}

// ExitNotice says how the process ended, as dtrace does: "pid 123 has
// exited", "pid 123 exited with status 2", "pid 123 terminated by
// SIGKILL".
func (d *Process) ExitNotice() string {
	if d.cmd == nil {
		return fmt.Sprintf("pid %d has exited", d.pid)
	}
	return exitNotice(d.pid, d.status)
}

// watch returns a channel closed when a grabbed process exits.
func (d *Process) watch() <-chan struct{} {
	done := make(chan struct{})
	fd, err := unix.PidfdOpen(d.pid, 0)
	go func() {
		defer close(done)
		if err == nil {
			defer unix.Close(fd)
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for {
				if n, _ := unix.Poll(fds, -1); n > 0 {
					return
				}
			}
		}
		for syscall.Kill(d.pid, 0) == nil {
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
