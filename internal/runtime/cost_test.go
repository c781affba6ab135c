package runtime_test

import (
	"syscall"
	"testing"

	"github.com/sonde-trace/sonde/internal/runtime"
	"github.com/sonde-trace/sonde/internal/tracer"
)

// Cost reads the kernel's run-time statistics of the session's programs:
// with statistics enabled, every getppid this test makes is a run of the
// program attached to system call entry, and the runs cost time.
func TestCost(t *testing.T) {
	res, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: `syscall::getppid:entry { @ = count(); }`}}, Options: []string{"nolibs"}})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := runtime.EnableStats()
	if err != nil {
		t.Fatal(err)
	}
	defer stats.Close()
	s, err := runtime.Load(res.Plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs0, ns0, err := s.Cost()
	if err != nil {
		t.Fatal(err)
	}
	const calls = 1000
	for i := 0; i < calls; i++ {
		syscall.Getppid()
	}
	runs, ns, err := s.Cost()
	if err != nil {
		t.Fatal(err)
	}
	if runs-runs0 < calls || ns <= ns0 {
		t.Errorf("after %d getppid calls the program has run %d times for %d ns; want at least %d runs and some time", calls, runs-runs0, ns-ns0, calls)
	}
}
