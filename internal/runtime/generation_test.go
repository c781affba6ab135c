package runtime_test

import (
	"fmt"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// Generations are exact under fire: threads pinned to every CPU call
// getppid as fast as they can while the test rotates the aggregations'
// generations as fast as the kernel lets it, reading each retired one.
// The generations read, summed, hold every call of every thread exactly
// once — a keyed aggregation (a per-CPU hash) and one without keys (a
// per-CPU array) alike — and nothing is dropped. An event counted into a
// generation after it was read, or counted twice, breaks the sums. (A
// flip that did not wait for the programs in flight is not caught: they
// finish within a microsecond or two, before the generation is read, in
// all but rare runs.)
func TestGenerationsExactUnderSwaps(t *testing.T) {
	// @all's argument takes long to compute, after the update has
	// fetched its generation: a flip often finds updates in flight.
	src := fmt.Sprintf(`syscall::getppid:entry /pid == %d/ {
		@all = sum(strlen(strjoin(strjoin(strjoin(execname, execname), strjoin(execname, execname)), strjoin(strjoin(execname, execname), strjoin(execname, execname)))) / 64 / 64 + 1);
		@bytid[tid] = count();
	}`, os.Getpid())
	prog, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: src}},
		Options: []string{"nolibs"}, Quiet: true, AggGenerations: true})
	if err != nil {
		t.Fatal(err)
	}
	var sink countSink
	sess, err := prog.Start(&tracer.StartOptions{Sink: &sink})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Begin(); err != nil {
		t.Fatal(err)
	}
	byTid, all := aggID(t, prog, "bytid"), aggID(t, prog, "all")

	// The threads call until the test has read rotations generations,
	// then stop, each saying how many calls it made.
	const rotations = 30
	cpus := goruntime.NumCPU()
	type made struct{ tid, calls int }
	results := make(chan made, cpus)
	var stop atomic.Bool
	var started sync.WaitGroup
	for cpu := 0; cpu < cpus; cpu++ {
		started.Add(1)
		go func(cpu int) {
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			var set unix.CPUSet
			set.Set(cpu)
			_ = unix.SchedSetaffinity(0, &set)
			started.Done()
			n := 0
			for !stop.Load() {
				syscall.Getppid()
				n++
				if n%50000 == 0 {
					// a breath for the test's own thread, which swaps,
					// on a machine of two CPUs
					time.Sleep(200 * time.Microsecond)
				}
			}
			results <- made{unix.Gettid(), n}
		}(cpu)
	}
	started.Wait()

	got := map[int64]int64{}
	var total int64
	busy := 0
	read := func() {
		if err := sess.Rotate(); err != nil {
			t.Fatal(err)
		}
		for _, r := range sess.Snapshot(all).Rows {
			total += r.Val.Sum
		}
		n := int64(0)
		for _, r := range sess.Snapshot(byTid).Rows {
			got[r.Keys[0].Int] += r.Val.Count
			n += r.Val.Count
		}
		if n > 0 {
			busy++
		}
		// Every other time, the generations read are emptied now
		// (Recycle) rather than by the next Rotate.
		if busy%2 == 0 {
			if err := sess.Recycle(); err != nil {
				t.Fatal(err)
			}
		}
	}
	began := time.Now()
	for i := 0; i < rotations; i++ {
		read()
	}
	took := time.Since(began)
	stop.Store(true)
	var threads []made
	for i := 0; i < cpus; i++ {
		threads = append(threads, <-results)
	}
	read() // what was counted after the last read above
	want := int64(0)
	for _, m := range threads {
		if got[int64(m.tid)] != int64(m.calls) {
			t.Errorf("thread %d: %d calls counted over the generations, want %d", m.tid, got[int64(m.tid)], m.calls)
		}
		want += int64(m.calls)
	}
	if total != want {
		t.Errorf("@all: %d calls over the generations, want %d", total, want)
	}
	sess.Status()
	if sink.drops != 0 {
		t.Errorf("%d aggregation drops", sink.drops)
	}
	if busy < 2 {
		t.Errorf("the calls fell in %d generations of %d: the swaps did not happen under fire", busy, rotations+1)
	}
	t.Logf("%d calls on %d CPUs over %d rotations (%d with calls); a rotation took %v on average",
		want, cpus, rotations+1, busy, took/rotations)
}

func aggID(t *testing.T, prog *tracer.Program, name string) int {
	for i, a := range prog.Plan.Aggs {
		if a.Name == name {
			return i
		}
	}
	t.Fatalf("no aggregation @%s", name)
	return -1
}

// countSink counts aggregation drops and prints nothing.
type countSink struct{ drops uint64 }

func (s *countSink) Firing(*value.Firing)       {}
func (s *countSink) Fault(*value.Fault)         {}
func (s *countSink) SetOption(string, string)   {}
func (s *countSink) Final([]*value.Aggregation) {}
func (s *countSink) Loss(l value.Loss) {
	if l.Kind == value.DropAggs {
		s.drops += l.N
	}
}
