package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
		if run := <-d.release; run {
			unix.PtraceDetach(pid)
		} else {
			unix.Kill(pid, unix.SIGKILL)
			unix.PtraceDetach(pid)
		}
		cmd.Wait()
		close(d.exited)
	}()
	s := <-ready
	return s.pid, s.err
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
		d.child.Process.Kill()
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
	if len(out) == 0 {
		out = []string{"true"}
	}
	return out
}

// exitNotice says how -c's command ended, as dtrace's prochandler does.
func exitNotice(cmd *exec.Cmd) string {
	pid := cmd.Process.Pid
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ok && ws.Signaled():
		return fmt.Sprintf("pid %d terminated by %s", pid, signalName(ws.Signal()))
	case ok && ws.ExitStatus() != 0:
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
