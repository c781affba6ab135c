// Command gens measures what per-second generations cost a dataset's
// program per event: the same D, compiled as sonde -n compiles it
// (aggregations in place) and as sonded does (reached through the outer
// map of their generations), attached in turn to a getppid loop pinned to
// one CPU, with the kernel's BPF run-time statistics on. As root, from the
// repository:
//
//	go run ./bench/gens [-rounds 25] [-n 500000] [-cpu 1] [-same] [-flip 1s]
//
// It prints the BPF run time per event of each, median, quartiles and
// minimum over the rounds (each round runs both, in turn, the first
// alternating from round to round so that neither always follows the
// other). -same compiles both in place: what the bench calls a
// difference between two identical programs is its noise. The program
// fires on every system call of the machine, as syscall.ops[execname]
// does: other work's calls count too, alike for both.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"github.com/sonde-trace/sonde/internal/tracer"
)

const program = `syscall:::entry { @a[execname] = count(); }`

func main() {
	rounds := flag.Int("rounds", 25, "rounds (each runs both programs)")
	calls := flag.Int("n", 500000, "getppid calls per run")
	cpu := flag.Int("cpu", 1, "CPU to pin the loop to (-1: none)")
	same := flag.Bool("same", false, "compile both in place (the bench's noise)")
	flip := flag.Duration("flip", 0, "flip, settle and empty the generations this often, as the agent does each second (0: never)")
	flag.Parse()
	if err := run(*rounds, *calls, *cpu, *same, *flip); err != nil {
		fmt.Fprintln(os.Stderr, "bench/gens:", err)
		os.Exit(1)
	}
}

func run(rounds, calls, cpu int, same bool, flip time.Duration) error {
	st, err := tracer.EnableStats()
	if err != nil {
		return err
	}
	defer st.Close()
	runtime.LockOSThread()
	if cpu >= 0 && cpu < runtime.NumCPU() {
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return err
		}
	}
	var direct, gens []float64
	for i := 0; i < rounds; i++ {
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, g := range order {
			ns, err := perEvent(g && !same, calls, flip)
			if err != nil {
				return err
			}
			if g {
				gens = append(gens, ns)
			} else {
				direct = append(direct, ns)
			}
		}
	}
	fmt.Printf("BPF run time per event of %s, %d rounds of %d getppid calls:\n", program, rounds, calls)
	if flip > 0 && !same {
		fmt.Printf("  (the generations flipped, settled and emptied every %v)\n", flip)
	}
	fmt.Printf("  %-28s %s\n", "in place (sonde -n)", summary(direct))
	second := "generations (sonded)"
	if same {
		second = "in place again (-same)"
	}
	fmt.Printf("  %-28s %s\n", second, summary(gens))
	fmt.Printf("  %-28s %s\n", "difference, round by round", summary(diffs(gens, direct)))
	return nil
}

// perEvent starts the program, runs the loop and returns its BPF run time
// per event.
func perEvent(gens bool, calls int, flip time.Duration) (float64, error) {
	p, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: program}}, Quiet: true,
		Options: []string{"nolibs", "aggsize=1048576"}, AggGenerations: gens})
	if err != nil {
		return 0, err
	}
	s, err := p.Start(&tracer.StartOptions{Sink: benchutil.Discard{}})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if err := s.Begin(); err != nil {
		return 0, err
	}
	r0, n0, err := s.Cost()
	if err != nil {
		return 0, err
	}
	stop, flipped := make(chan struct{}), make(chan error, 1)
	if gens && flip > 0 {
		go flipEvery(s, flip, stop, flipped)
	} else {
		flipped <- nil
	}
	for i := 0; i < calls; i++ {
		syscall.Getppid()
	}
	close(stop)
	if err := <-flipped; err != nil {
		return 0, err
	}
	r1, n1, err := s.Cost()
	if err != nil || r1 == r0 {
		return 0, fmt.Errorf("no runs counted (%v)", err)
	}
	return float64(n1-n0) / float64(r1-r0), nil
}

// flipEvery does to s's generations what the agent does each second
// (there each of its datasets in turn): flip, wait for the programs,
// empty the generation swapped out; until stop is closed.
func flipEvery(s *tracer.Session, every time.Duration, stop <-chan struct{}, done chan<- error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			done <- nil
			return
		case <-t.C:
			if err := s.Flip(); err != nil {
				done <- err
				return
			}
			if err := s.Recycle(); err != nil {
				done <- err
				return
			}
		}
	}
}

// diffs are b[i]-a[i]: the two programs' difference in each round.
func diffs(b, a []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	return d
}

func summary(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(f float64) float64 { return s[int(f*float64(len(s)-1))] }
	return fmt.Sprintf("median %.1f ns (quartiles %.1f–%.1f, min %.1f)", q(0.5), q(0.25), q(0.75), s[0])
}
