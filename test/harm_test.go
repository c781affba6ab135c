package test

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// harmProg computes something and prints it: a command that is damaged
// by its tracer (a breakpoint left in its text, a register changed, a
// signal it should not get) dies or prints something else.
const harmProg = `#include <stdio.h>
int main(void) {
	volatile unsigned long n = 3000000;
	unsigned long s = 0;
	for (unsigned long i = 1; i <= n; i++)
		s += (i % 7) * i;
	printf("%lu\n", s);
	return 0;
}
`

// TestKillDuringStart kills sonde -c with SIGKILL at random instants of
// its first 50 ms, while it starts the command, holds it, runs it to its
// entry point and places probes: each time the command, orphaned, must
// run to the end untouched (exit 0, its own output) or not have been
// started at all; never die of SIGTRAP or SIGSEGV, never stay stopped.
func TestKillDuringStart(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "harm")
	if err := os.WriteFile(bin+".c", []byte(harmProg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cc", "-O1", "-o", bin, bin+".c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	want, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	// Orphans are reparented to this process, which can then wait for them.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	programs := map[string]string{
		"pid":     `pid$target::main:entry { }`,
		"syscall": `syscall::write:entry /pid == $target/ { }`,
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for name, prog := range programs {
		t.Run(name, func(t *testing.T) {
			started := 0
			for i := 0; i < 30; i++ {
				// Within 50 ms, more often early: sonde holds the
				// command in its first few milliseconds.
				u := rng.Float64()
				delay := time.Duration(u * u * float64(50*time.Millisecond))
				if killOnce(t, bin, prog, string(want), delay, dir) {
					started++
				}
			}
			t.Logf("%d of 30 runs had started the command when sonde was killed", started)
		})
	}
}

// killOnce runs sonde -c bin, kills it after delay and checks what
// became of the command. It says whether the command had been started.
func killOnce(t *testing.T, bin, prog, want string, delay time.Duration, dir string) bool {
	t.Helper()
	out, err := os.CreateTemp(dir, "out")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.Command(sonde, "-q", "-o", "/dev/null", "-n", prog, "-c", bin)
	cmd.Stdout = out // the command inherits it
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for _, pid := range orphans() {
		ws, started := waitOrphan(t, pid)
		got, _ := os.ReadFile(out.Name())
		switch {
		case !started:
			// A child of sonde's that never executed anything: the
			// command was not started.
			continue
		case ws.Signaled():
			t.Errorf("killed after %v: the command died of %v; sonde said:\n%s", delay, ws.Signal(), stderr.String())
		case ws.ExitStatus() != 0:
			t.Errorf("killed after %v: the command exited %d; sonde said:\n%s", delay, ws.ExitStatus(), stderr.String())
		case string(got) != want:
			t.Errorf("killed after %v: the command printed %q, want %q; sonde said:\n%s", delay, got, want, stderr.String())
		}
		return true
	}
	return false
}

// orphans lists the children this process has adopted.
func orphans() []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(self) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitOrphan waits for an adopted process to end, and says whether it
// had executed anything (a forked child that never did carries
// PF_FORKNOEXEC to its end). One still there after 30 s (stopped, or
// looping) is a failure, and is killed.
func waitOrphan(t *testing.T, pid int) (unix.WaitStatus, bool) {
	t.Helper()
	for i := 0; i < 3000; i++ {
		var si unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &si, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
		if err != nil && err != unix.EINTR {
			t.Fatalf("waiting for %d: %v", pid, err)
		}
		if si.Signo != 0 {
			const pfForkNoExec = 0x40
			started := statField(pid, 6)&pfForkNoExec == 0
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WALL, nil)
			return ws, started
		}
		time.Sleep(10 * time.Millisecond)
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	unix.Kill(pid, unix.SIGKILL)
	var ws unix.WaitStatus
	unix.Wait4(pid, &ws, unix.WALL, nil)
	t.Fatalf("the command %d never ended after sonde was killed:\n%s", pid, status)
	return ws, true
}

// statField is field i (0: state) of /proc/pid/stat after the command name.
func statField(pid, i int) uint64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if i >= len(f) {
		return 0
	}
	n, _ := strconv.ParseUint(f[i], 10, 64)
	return n
}
