package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// startChild starts -c's command held at a gate: the child is sonde itself,
// which waits for one byte on fd 3 and then execs the command, so the
// command runs no instruction before the probes are in place and its pid
// ($target) is known before compiling.
func (d *driver) startChild() (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), gateEnv+"="+d.cfg.command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{r}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	r.Close()
	d.child, d.gate = cmd, w
	return cmd.Process.Pid, nil
}

// releaseChild lets the held command run and returns a channel closed when
// it exits (nil without -c).
func (d *driver) releaseChild() <-chan struct{} {
	if d.child == nil {
		return nil
	}
	done := make(chan struct{})
	d.gate.Write([]byte{1})
	d.gate.Close()
	go func() {
		d.child.Wait()
		close(done)
	}()
	return done
}

func (d *driver) killChild() {
	if d.child != nil && d.child.ProcessState == nil {
		if d.gate != nil {
			d.gate.Close()
		}
		d.child.Process.Kill()
		d.child.Wait()
	}
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

// execGate runs in the child: wait for the go-ahead, then exec the command
// through the shell's word splitting rules (as dtrace -c does with argv).
func execGate() {
	cmd := os.Getenv(gateEnv)
	os.Unsetenv(gateEnv)
	gate := os.NewFile(3, "gate")
	var b [1]byte
	if n, _ := gate.Read(b[:]); n != 1 {
		os.Exit(127)
	}
	gate.Close()
	argv := splitCommand(cmd)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "sonde: failed to execute %s: %v\n", argv[0], err)
		os.Exit(127)
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "sonde: failed to execute %s: %v\n", argv[0], err)
	os.Exit(127)
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
