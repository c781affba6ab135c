package runtime_test

import (
	"fmt"
	"os"
	goruntime "runtime"
	"sync"
	"syscall"
	"testing"

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
// generation after it was read (a swap that did not wait for the
// programs), or counted twice, breaks the sums.
func TestGenerationsExactUnderSwaps(t *testing.T) {
	src := fmt.Sprintf(`syscall::getppid:entry /pid == %d/ { @bytid[tid] = count(); @all = count(); }`, os.Getpid())
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

	const calls = 300000
	cpus := goruntime.NumCPU()
	tids := make(chan int, cpus)
	var wg sync.WaitGroup
	for cpu := 0; cpu < cpus; cpu++ {
		wg.Add(1)
		go func(cpu int) {
			defer wg.Done()
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			var set unix.CPUSet
			set.Set(cpu)
			_ = unix.SchedSetaffinity(0, &set)
			tids <- unix.Gettid()
			for i := 0; i < calls; i++ {
				syscall.Getppid()
			}
		}(cpu)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	got := map[int64]int64{}
	var total int64
	rotations, busy := 0, 0
	read := func() {
		if err := sess.Rotate(byTid); err != nil {
			t.Fatal(err)
		}
		if err := sess.Rotate(all); err != nil {
			t.Fatal(err)
		}
		rotations++
		n := int64(0)
		for _, r := range sess.Snapshot(byTid).Rows {
			got[r.Keys[0].Int] += r.Val.Count
			n += r.Val.Count
		}
		if n > 0 {
			busy++
		}
		for _, r := range sess.Snapshot(all).Rows {
			total += r.Val.Count
		}
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		read()
	}
	read() // what was counted after the last read above
	close(tids)
	want := int64(0)
	for tid := range tids {
		if got[int64(tid)] != calls {
			t.Errorf("thread %d: %d calls counted over the generations, want %d", tid, got[int64(tid)], calls)
		}
		want += calls
	}
	if total != want {
		t.Errorf("@all: %d calls over the generations, want %d", total, want)
	}
	sess.Status()
	if sink.drops != 0 {
		t.Errorf("%d aggregation drops", sink.drops)
	}
	if busy < 20 {
		t.Errorf("the calls fell in %d generations of %d: too few swaps under fire to show anything", busy, rotations)
	}
	t.Logf("%d calls on %d CPUs over %d rotations (%d with calls)", want, cpus, rotations, busy)
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
