package runtimetest

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Spawn starts argv for the length of the test (it is killed and reaped
// at the end) and returns its pid once the process has an executable
// mapping whose path contains mapped: its exec is done and the object
// whose probes the test wants (libc.so, the program itself) is mapped.
func Spawn(t *testing.T, mapped string, argv ...string) int {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", argv[0], err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		maps, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
		if ExecMapped(string(maps), mapped) {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never mapped %s", argv[0], mapped)
		}
	}
}

// ExecMapped reports whether a /proc/PID/maps text has an executable
// mapping whose path contains name.
func ExecMapped(maps, name string) bool {
	for _, line := range strings.Split(maps, "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && strings.Contains(f[1], "x") && strings.Contains(f[5], name) {
			return true
		}
	}
	return false
}
