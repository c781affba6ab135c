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
