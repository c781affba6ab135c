package test

import (
	"context"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/agent"
	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
)

// A breakdown by pid keeps counting new keys long after its aggregation
// map would have filled: the agent reads each second's generation whole
// and the next second starts empty, so the map bounds the keys of one
// second, not of the dataset's life. 1,800 short-lived processes (each
// its own pid, 3 writes each) run over several seconds against a map of
// 1,024 entries (the smallest aggsize): every pid's writes are counted,
// exactly, and nothing is dropped. (Differencing cumulative readings,
// the agent stopped counting new pids at the 1,024th.)
func TestGenerationsEvictKeys(t *testing.T) {
	name, path := uniqueDD(t, "ddgen")
	a := runAgent(t, agent.Config{AggEntries: 1024, KeyLimit: 100000})
	spec := "syscall.ops[execname=" + name + "][name=write][pid]"
	d, err := a.Create(spec, analytics.Open)
	if err != nil {
		t.Fatal(err)
	}

	const batches, perBatch, writes = 6, 300, 3
	want := map[string]int64{}
	next := time.Now().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(next) + 20*time.Millisecond)
	start := next
	for b := 0; b < batches; b++ {
		for i := 0; i < perBatch; i++ {
			cmd := exec.Command(path, "if=/dev/zero", "of=/dev/null", "bs=1", "count="+strconv.Itoa(writes), "status=none")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("dd: %v\n%s", err, out)
			}
			want[strconv.Itoa(cmd.Process.Pid)] += writes
		}
		// The next batch in a second of its own: at most two batches'
		// pids in any second, well under the map's 1,024 entries.
		next = time.Now().Truncate(time.Second).Add(time.Second)
		time.Sleep(time.Until(next) + 20*time.Millisecond)
	}
	n := int(time.Since(start)/time.Second) + 2
	wctx, wcancel := context.WithTimeout(context.Background(), time.Minute)
	defer wcancel()
	secs, err := a.Data(wctx, d.Name, start, n, analytics.PerSecond, true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	busy := 0
	for _, s := range secs {
		if len(s.Rows) > 0 {
			busy++
		}
		for _, r := range s.Rows {
			got[r.Key[0]] += r.Value
		}
	}
	if len(want) <= 1024 {
		t.Fatalf("only %d distinct pids: the test needs more than the map's entries", len(want))
	}
	missing, wrong := 0, 0
	for pid, w := range want {
		switch g, ok := got[pid]; {
		case !ok:
			missing++
		case g != w:
			wrong++
		}
	}
	if missing > 0 || wrong > 0 || len(got) != len(want) {
		t.Errorf("%d pids ran, %d keys counted: %d pids missing, %d miscounted", len(want), len(got), missing, wrong)
	}
	info, err := a.Dataset(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	if info.Dropped != 0 || info.Overflow != 0 {
		t.Errorf("dropped %d, overflow %d: want none", info.Dropped, info.Overflow)
	}
	if busy < batches {
		t.Errorf("the writes fell in %d seconds, want at least %d", busy, batches)
	}
	t.Logf("%d pids over %d seconds, map of 1024 entries", len(want), busy)
}

// Every statistic of the catalogue, with each of its breakdowns, exported
// or not, loads with its aggregation in generations: the kernel's
// verifier accepts the code, and a second is read from it.
func TestGenerationsLoadEveryStatistic(t *testing.T) {
	a, err := agent.New(agent.Config{Store: agent.NewMemStore(), Catalogue: stats.New(), Budget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	n := 0
	for _, st := range a.Statistics() {
		names := []string{st.Name}
		for _, b := range st.Breakdowns {
			names = append(names, st.Name+"["+b.Name+"]")
		}
		for _, name := range names {
			if _, err := a.Dataset(name); err == nil {
				continue // a default dataset, running already
			}
			d, err := a.Create(name, analytics.Open)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if d.Program != "" {
				n++
				if _, err := a.SetExport(d.Name, true); err != nil {
					t.Errorf("%s exported: %v", name, err)
				}
			}
			if err := a.Destroy(d.Name); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	for _, e := range a.Events() {
		if e.Kind == "error" {
			t.Errorf("event: %s %s", e.Dataset, e.Message)
		}
	}
	if n < 20 {
		t.Errorf("only %d dynamic datasets", n)
	}
	t.Logf("%d dynamic datasets loaded", n)
}

// Marking a distribution for export restarts its session on another scale
// while a workload runs. The new session counts in step with the old one
// (one flip of a shared generation index ends the old one's interval and
// starts the new one's), so nothing is lost, and what can be counted twice
// is only an event whose two programs (the old session's, then the new
// one's, run one after the other by the tracepoint) straddle the flip: at
// most one per CPU a switch. The new session used to count from its
// start, the old one until it was read, and the thousands of writes
// between were in both.
func TestExportSwitchCountsOnce(t *testing.T) {
	name, path := uniqueDD(t, "ddexp")
	a := runAgent(t, agent.Config{})
	d, err := a.Create("syscall.latency[execname="+name+"][name=write]", analytics.Open)
	if err != nil {
		t.Fatal(err)
	}
	next := time.Now().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(next) + 100*time.Millisecond)
	start := next
	const writes = 200000
	cmd := exec.Command(path, "if=/dev/zero", "of=/dev/null", "bs=1", "count="+strconv.Itoa(writes), "status=none")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	switches := 0
	for export := true; ; export = !export {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("dd: %v", err)
			}
		default:
			if _, err := a.SetExport(d.Name, export); err != nil {
				t.Fatal(err)
			}
			switches++
			time.Sleep(50 * time.Millisecond)
			continue
		}
		break
	}
	n := int(time.Since(start)/time.Second) + 2
	wctx, wcancel := context.WithTimeout(context.Background(), time.Minute)
	defer wcancel()
	secs, err := a.Data(wctx, d.Name, start, n, analytics.PerSecond, true)
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	for _, s := range secs {
		for _, r := range s.Rows {
			got += r.Value
		}
	}
	if switches < 2 {
		t.Fatalf("dd ended after %d switches: the test needs the switches during its writes", switches)
	}
	if extra := got - writes; extra < 0 || extra > int64(switches*runtime.NumCPU()) {
		t.Errorf("%d writes counted over %d switches of scale, want %d (and at most one more per CPU a switch)", got, switches, writes)
	}
	t.Logf("%d switches", switches)
}

// runAgent runs an agent of the built-in catalogue on a store in memory,
// with no budget, until the test ends.
func runAgent(t *testing.T, cfg agent.Config) *agent.Agent {
	t.Helper()
	cfg.Store, cfg.Catalogue, cfg.Budget = agent.NewMemStore(), stats.New(), -1
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); a.Close() })
	go a.Run(ctx)
	return a
}
