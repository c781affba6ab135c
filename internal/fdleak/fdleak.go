// Package fdleak is the descriptor-leak check that the tests of every
// package opening files, maps, programs or links run after their tests:
// a descriptor open after m.Run that was not open before fails the run.
//
// Use it from a package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(fdleak.Check(m)) }
package fdleak

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// Check runs the tests and returns their exit code, made 1 when they left
// a descriptor open.
func Check(m *testing.M) int {
	before := Open()
	code := m.Run()
	if code != 0 {
		return code
	}
	// No garbage collection first: a finalizer that would close a dropped
	// object hides a leak that a long-running agent would feel.
	leaked := Leaked(before)
	if len(leaked) == 0 {
		return 0
	}
	fmt.Fprintf(os.Stderr, "file descriptors leaked by the tests: %s\n", strings.Join(leaked, ", "))
	return 1
}

// Open maps each open descriptor to what it refers to.
func Open() map[string]string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	fds := map[string]string{}
	for _, e := range ents {
		// The descriptor ReadDir listed itself with is closed by now.
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil {
			fds[e.Name()] = target
		}
	}
	return fds
}

// Leaked lists the descriptors open now and not in before ("fd (target)"),
// less those the Go runtime's network poller keeps once started.
func Leaked(before map[string]string) []string {
	var out []string
	for fd, target := range Open() {
		if _, ok := before[fd]; !ok && !runtimeFD(target) {
			out = append(out, fd+" ("+target+")")
		}
	}
	sort.Strings(out)
	return out
}

// runtimeFD reports whether a descriptor is one the Go runtime's poller
// keeps open once something (os/exec, a deadline) has started it.
func runtimeFD(target string) bool {
	return target == "anon_inode:[eventpoll]" || target == "anon_inode:[eventfd]"
}
