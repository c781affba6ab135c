// Package testenv is what the tests of privileged packages run first:
// those that load BPF programs, attach probes, read tracefs or other
// processes' memory. Such a package's TestMain calls Root, which marks it
// privileged: `make unit` leaves it out (the Makefile finds the packages
// whose tests import testenv) and `make e2e` runs it as root. Root fails
// the run, with the reason, for anyone else, rather than skipping tests
// that would then prove nothing.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/fdleak"
)

// Root runs the tests as root, with the descriptor-leak check, and
// returns the exit code for os.Exit.
func Root(m *testing.M) int {
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "these tests load BPF programs or read other processes and must run as root (make e2e)")
		return 1
	}
	return fdleak.Check(m)
}

// LoopDevice attaches a 4 MiB file of the test's as a loop device, a disk
// of the test's own, detached when the test ends, and returns its path
// (/dev/loopN): I/O counted on it is the test's alone.
func LoopDevice(t *testing.T) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, make([]byte, 4<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup: %v: %s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "-d", loop).Run() })
	return loop
}
