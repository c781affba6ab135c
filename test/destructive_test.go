package test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stop() stops the process that fired the probe (DTrace's
// dtrace_action_stop): a shell looping over sleep is left stopped, state T,
// after sonde has exited. Before stop() was made to work, the shell kept
// running.
func TestStopAction(t *testing.T) {
	sh := exec.Command("/bin/sh", "-c", "while :; do sleep 0.05; done")
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = sh.Process.Signal(syscall.SIGCONT)
		_ = sh.Process.Kill()
		_ = sh.Wait()
	}()
	pid := sh.Process.Pid
	out, err := exec.Command(sonde, "-w", "-q", "-p", strconv.Itoa(pid),
		"-n", `syscall::wait4:entry /pid == $target/ { stop(); exit(0); }`).CombinedOutput()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, out)
	}
	// The signal is delivered as the shell returns to user space; give
	// it that long (a hang guard, not a timing).
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := procState(t, pid)
		if st == "T" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell's state is %q, want T (stopped)", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procState is the state letter of /proc/PID/stat.
func procState(t *testing.T, pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	return f[0]
}
