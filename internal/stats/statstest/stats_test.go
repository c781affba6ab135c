// Package statstest runs the statistics catalogue's datasets against the
// running kernel: every dynamic statistic's program loads, and counts known
// workloads exactly where exactness is possible; static statistics give
// plausible values. It needs root (make e2e).
package statstest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/testenv"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// The workloads' names are this run's: two checkouts testing at once
// must not count each other's processes.
var (
	runTag = strconv.Itoa(os.Getpid() % 10000)
	stdd   = "stdd" + runTag
	stiodd = "stiod" + runTag
	sttrue = "sttru" + runTag
)

func TestMain(m *testing.M) { os.Exit(testenv.Root(m)) }

// filterValue is a valid value for a filter on a breakdown.
func filterValue(b string) string {
	switch b {
	case "pid", "cpu", "port", "rport":
		return "1"
	case "op", "direction", "mode":
		return map[string]string{"op": "write", "direction": "in", "mode": "user"}[b]
	case "state", "from":
		return "ESTABLISHED"
	}
	return "sonde"
}

// start compiles and starts a dataset's program.
func start(t *testing.T, p *stats.Plan) *tracer.Session {
	t.Helper()
	prog, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: p.Program}}, Quiet: true})
	if err != nil {
		t.Fatalf("%s: %s%v\n%s", p.Spec, prog.Render(err), err, p.Program)
	}
	sess, err := prog.Start(&tracer.StartOptions{Sink: &format.Text{Out: io.Discard, Warn: os.Stderr, Quiet: true}})
	if err != nil {
		t.Fatalf("%s: %s%v\n%s", p.Spec, prog.Render(err), err, p.Program)
	}
	if err := sess.Begin(); err != nil {
		sess.Close()
		t.Fatalf("%s: %v", p.Spec, err)
	}
	return sess
}

// TestEveryProgramLoads: each dynamic statistic, with all its breakdowns
// and with a filter on each, loads into the kernel.
func TestEveryProgramLoads(t *testing.T) {
	c := stats.New()
	for _, st := range c.Statistics() {
		all := &stats.Spec{Statistic: st.Name}
		filtered := &stats.Spec{Statistic: st.Name}
		for _, b := range st.Breakdowns {
			all.Breakdowns = append(all.Breakdowns, b.Name)
			if b.Name != "stack" && b.Name != "ustack" {
				filtered.Filters = append(filtered.Filters, analytics.Filter{Breakdown: b.Name, Value: filterValue(b.Name)})
			}
		}
		for _, spec := range []*stats.Spec{{Statistic: st.Name}, all, filtered} {
			p, err := c.Plan(spec)
			if err != nil {
				t.Errorf("%s: %v", spec, err)
				continue
			}
			if p.Static != nil {
				if _, err := p.Static(time.Now()); err != nil {
					t.Errorf("%s: %v", spec, err)
				}
				continue
			}
			sess := start(t, p)
			sess.Close()
		}
	}
}

// result is what a dataset counted, summed over its seconds: per key,
// the counter's value or the distribution's events.
type result map[string]int64

// keyString writes a key as the agent shows it.
func keyString(vals []value.Value) string {
	var parts []string
	for _, v := range vals {
		switch v.Kind {
		case value.Int:
			parts = append(parts, strconv.FormatInt(v.Int, 10))
		case value.Stack, value.UStack:
			parts = append(parts, strings.Join(v.Frames, ";"))
		default:
			parts = append(parts, v.Str)
		}
	}
	return strings.Join(parts, ",")
}

// amounts reads a cumulative aggregation: per key, its count, sum or
// number of events in buckets.
func amounts(a *value.Aggregation) map[string]int64 {
	m := map[string]int64{}
	for _, r := range a.Rows {
		var n int64
		switch a.Func {
		case value.Count:
			n = r.Val.Count
		case value.Sum:
			n = r.Val.Sum
		default:
			for _, b := range r.Val.Buckets {
				n += b
			}
		}
		m[keyString(r.Keys)] = n
	}
	return m
}

// collect runs work while the dataset is collected the way the agent
// collects it: the aggregation read whole every second and differenced
// with the last reading; it returns the seconds' values summed by key.
func collect(t *testing.T, spec string, work func() error) result {
	t.Helper()
	s, err := stats.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := stats.New().Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Program == "" {
		t.Fatalf("%s: not a D dataset", spec)
	}
	sess := start(t, p)
	defer sess.Close()
	done := make(chan error, 1)
	go func() { done <- work() }()
	total := result{}
	last := map[string]int64{}
	second := func() {
		now := amounts(sess.Snapshot(0))
		for k, v := range now {
			if d := v - last[k]; d != 0 {
				total[k] += d
			}
		}
		last = now
	}
	next := time.Now().Truncate(time.Second).Add(time.Second)
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: the workload: %v", spec, err)
			}
			if err := sess.Poll(); err != nil {
				t.Fatal(err)
			}
			second()
			if err := sess.End(); err != nil {
				t.Fatal(err)
			}
			return total
		default:
		}
		if err := sess.Poll(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(next) {
			second()
			next = next.Add(time.Second)
		}
	}
}

// program copies a system program to a temporary directory under a name
// no other process has, for an execname to filter by.
func program(t *testing.T, path, name string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, out)
	}
	return nil
}

func want(t *testing.T, spec string, got result, exp result) {
	t.Helper()
	if len(got) != len(exp) {
		t.Errorf("%s: %v, want %v", spec, got, exp)
		return
	}
	for k, v := range exp {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", spec, got, exp)
			return
		}
	}
}

// TestSyscallOpsExact: dd bs=1 count=N writes exactly N times, and the
// filter keeps every other process out (only dd's system calls).
func TestSyscallOpsExact(t *testing.T) {
	dd := program(t, "/usr/bin/dd", stdd)
	const n = 12345
	work := func() error {
		return run(dd, "if=/dev/zero", "of=/dev/null", "bs=1", "count="+strconv.Itoa(n), "status=none")
	}
	spec := "syscall.ops[execname=" + stdd + "][name=write]"
	want(t, spec, collect(t, spec, work), result{"": n})
	spec = "syscall.ops[execname=" + stdd + "][name]"
	got := collect(t, spec, work)
	if got["write"] != n || got["read"] < n || got["read"] > n+50 {
		t.Errorf("%s: %d writes, %d reads, want %d and about %d", spec, got["write"], got["read"], n, n)
	}
	spec = "syscall.latency[execname=" + stdd + "][name=write]"
	want(t, spec, collect(t, spec, work), result{"": n})
	spec = "syscall.latency[name=read][execname]"
	if got := collect(t, spec, work); got[stdd] < n || got[stdd] > n+50 {
		t.Errorf("%s: %v, want about %d reads of %s", spec, got, n, stdd)
	}
}

// TestIOOpsExact: O_DIRECT writes of 4 KiB over a file already written
// are one request each, issued by dd.
func TestIOOpsExact(t *testing.T) {
	dd := program(t, "/usr/bin/dd", stiodd)
	const n = 200
	// A disk of this test's own (a loop device): its I/O is dd's alone.
	loop := testenv.LoopDevice(t)
	dev := filepath.Base(loop)
	work := func() error {
		return run(dd, "if=/dev/zero", "of="+loop, "bs=4096", "count="+strconv.Itoa(n), "oflag=direct", "status=none")
	}
	spec := "io.ops[execname=" + stiodd + "][device]"
	want(t, spec, collect(t, spec, work), result{dev: n})
	spec = "io.bytes[execname=" + stiodd + "][op]"
	want(t, spec, collect(t, spec, work), result{"write": n * 4096})
	spec = "io.latency[device=" + dev + "][op=write]"
	if got := collect(t, spec, work); got[""] < n {
		t.Errorf("%s: %v, want at least %d writes", spec, got, n)
	}
}

// TestProcExecExact: N execs of a program are N exec-success.
func TestProcExecExact(t *testing.T) {
	prog := program(t, "/usr/bin/true", sttrue)
	const n = 25
	work := func() error {
		for i := 0; i < n; i++ {
			if err := run(prog); err != nil {
				return err
			}
		}
		return nil
	}
	spec := "proc.exec[execname=" + sttrue + "]"
	want(t, spec, collect(t, spec, work), result{"": n})
	spec = "proc.exec[execname]"
	if got := collect(t, spec, work); got[sttrue] != n {
		t.Errorf("%s: %v, want %s %d", spec, got, sttrue, n)
	}
}

// TestTCPConnectionsExact: N connections to a listener are N out (to its
// port) and N in (on its port).
func TestTCPConnectionsExact(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	const n = 20
	const size = 10000
	work := func() error {
		for i := 0; i < n; i++ {
			c, err := net.Dial("tcp4", ln.Addr().String())
			if err != nil {
				return err
			}
			s, err := ln.Accept()
			if err != nil {
				c.Close()
				return err
			}
			_, err = c.Write(make([]byte, size))
			if err == nil {
				_, err = io.ReadFull(s, make([]byte, size))
			}
			c.Close()
			s.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	spec := "tcp.connections[rport=" + port + "][direction]"
	want(t, spec, collect(t, spec, work), result{"out": n})
	spec = "tcp.connections[port=" + port + "][direction]"
	want(t, spec, collect(t, spec, work), result{"in": n})
	spec = "tcp.states[port=" + port + "][state=LISTEN]"
	want(t, spec, collect(t, spec, work), result{}) // listening began before
	spec = "net.bytes[pid=" + strconv.Itoa(os.Getpid()) + "][direction]"
	got := collect(t, spec, work)
	if got["out"] != n*size || got["in"] != n*size {
		t.Errorf("%s: %v, want %d each way", spec, got, n*size)
	}
}

// TestOffCPUAndRunq: a program that sleeps shows off-CPU time of its
// sleeps, and threads woken wait in the run queue (plausibility: the
// kernel decides how long).
func TestOffCPUAndRunq(t *testing.T) {
	sleep := program(t, "/usr/bin/sleep", "stsleep")
	work := func() error { return run(sleep, "0.3") }
	spec := "offcpu.time[execname=stsleep]"
	if got := collect(t, spec, work); got[""] < 1 {
		t.Errorf("%s: %v, want at least the sleep", spec, got)
	}
	spec = "sched.runq.latency[execname=stsleep]"
	if got := collect(t, spec, work); got[""] < 1 {
		t.Errorf("%s: %v, want at least the wakeup after the sleep", spec, got)
	}
	spec = "offcpu.time[execname=stsleep][ustack]"
	if got := collect(t, spec, work); len(got) == 0 {
		t.Errorf("%s: no stacks", spec)
	}
	spec = "fault.ops[execname=stsleep][mode]"
	if got := collect(t, spec, work); got["user"] < 1 {
		t.Errorf("%s: %v, want the faults of a new process", spec, got)
	}
}

// TestCPUUtilizationBusy: a busy loop pinned to a CPU keeps it over 90%
// busy in cpu.utilization[cpu].
func TestCPUUtilizationBusy(t *testing.T) {
	cpu := runtime.NumCPU() - 1
	busy := exec.Command("taskset", "-c", strconv.Itoa(cpu), "sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
	c := stats.New()
	s, _ := stats.Parse("cpu.utilization[cpu]")
	p, err := c.Plan(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Static(time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	rows, err := p.Static(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if len(r.Key) > 0 && r.Key[0] == strconv.Itoa(cpu) { // the row without a key is the total
			if r.Value < 90*stats.UtilizationScale || r.Value > 100*stats.UtilizationScale {
				t.Errorf("cpu %d: %d hundredths of a percent, want over 90%%", cpu, r.Value)
			}
			return
		}
	}
	t.Errorf("no row for cpu %d: %v", cpu, rows)
}
