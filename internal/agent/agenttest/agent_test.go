// Package agenttest tests the agent with real datasets: the statistics
// catalogue's D programs loaded into the kernel, real processes traced.
package agenttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/agent"
	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
	"github.com/sonde-trace/sonde/internal/store"
	"github.com/sonde-trace/sonde/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Root(m)) }

// running is an agent ticking on the real clock.
type running struct {
	a    *agent.Agent
	stop func()
}

// openStore opens the store in dir.
func openStore(t *testing.T, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func start(t *testing.T, st agent.Store, cfg agent.Config) *running {
	t.Helper()
	cfg.Store, cfg.Catalogue = st, stats.New()
	cfg.Logf = t.Logf
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Run(ctx)
	}()
	r := &running{a: a}
	once := sync.Once{}
	r.stop = func() {
		once.Do(func() {
			cancel()
			<-done
			a.Close()
		})
	}
	t.Cleanup(r.stop)
	return r
}

// dd copies /bin/dd as name (its execname) in a temporary directory.
func dd(t *testing.T, name string) string {
	t.Helper()
	src, err := exec.LookPath("dd")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runDD makes count writes of one byte.
func runDD(t *testing.T, path string, count int) {
	t.Helper()
	out, err := exec.Command(path, "if=/dev/zero", "of=/dev/null", "bs=1", fmt.Sprintf("count=%d", count), "status=none").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", path, err, out)
	}
}

// settle waits until the second now is in has been sampled.
func settle(t *testing.T, a *agent.Agent, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.Data(ctx, name, time.Now(), 1, analytics.PerSecond, true); err != nil {
		t.Fatal(err)
	}
}

// total sums key's values (all keys for "") over a dataset's seconds
// since from.
func total(t *testing.T, a *agent.Agent, name string, from time.Time, key string) (int64, []analytics.Second) {
	t.Helper()
	n := int(time.Since(from)/time.Second) + 2
	secs, err := a.Data(context.Background(), name, from.Add(-time.Second), n, analytics.PerSecond, false)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, s := range secs {
		for _, r := range s.Rows {
			if key == "" || strings.Join(r.Key, ",") == key {
				sum += r.Value
			}
		}
	}
	return sum, secs
}

func unique(prefix string) string { return fmt.Sprintf("%s%d", prefix, os.Getpid()%100000) }

// A drill-down counts exactly the events of the process it names: the
// filter is the program's predicate, so another process running the same
// program under another name is not counted at all.
func TestDrillDownExact(t *testing.T) {
	r := start(t, openStore(t, t.TempDir()), agent.Config{Budget: -1})
	name, other := unique("sdd"), unique("odd")
	spec := fmt.Sprintf("syscall.ops[execname=%s][name]", name)
	from := time.Now()
	d, err := r.a.Create(spec, analytics.Archived)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("/(execname == %q)/", name); !strings.Contains(d.Program, want) {
		t.Errorf("the dataset's program has no %s:\n%s", want, d.Program)
	}
	// Both copies are written before either runs: a copy written while
	// the other forks would be busy (its descriptor inherited).
	ours, theirs := dd(t, name), dd(t, other)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runDD(t, theirs, 5000)
	}()
	runDD(t, ours, 12345)
	wg.Wait()
	settle(t, r.a, spec)
	writes, secs := total(t, r.a, spec, from, "write")
	if writes != 12345 {
		t.Errorf("%d writes over %d seconds, want 12345: %+v", writes, len(secs), secs)
	}
	if reads, _ := total(t, r.a, spec, from, "read"); reads < 12345 || reads > 12345+100 {
		t.Errorf("%d reads, want 12345 (and the dynamic linker's few)", reads)
	}
	settle(t, r.a, spec) // two seconds for the cost (the first primes it)
	settle(t, r.a, spec)
	d, _ = r.a.Dataset(spec)
	t.Logf("%s: %.0f events/s, %.0f ns per event (BPF run time)", spec, d.EventsPerSecond, d.NsPerEvent)
	if d.EventsPerSecond <= 0 || d.NsPerEvent <= 0 {
		t.Errorf("no cost measured: %+v", d)
	}
}

// Nothing is counted while a dataset is suspended; resuming primes again.
func TestSuspendResume(t *testing.T) {
	r := start(t, openStore(t, t.TempDir()), agent.Config{Budget: -1})
	name := unique("rdd")
	path := dd(t, name)
	spec := fmt.Sprintf("syscall.ops[execname=%s][name]", name)
	from := time.Now()
	if _, err := r.a.Create(spec, analytics.Archived); err != nil {
		t.Fatal(err)
	}
	runDD(t, path, 1000)
	if _, err := r.a.SetState(spec, analytics.Suspended); err != nil {
		t.Fatal(err)
	}
	runDD(t, path, 777)
	if _, err := r.a.SetState(spec, analytics.Archived); err != nil {
		t.Fatal(err)
	}
	runDD(t, path, 300)
	settle(t, r.a, spec)
	if writes, secs := total(t, r.a, spec, from, "write"); writes != 1300 {
		t.Errorf("%d writes, want 1000+300 (777 while suspended): %+v", writes, secs)
	}
}

// An agent restarted on the same state keeps its datasets and their data.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	db := openStore(t, dir)
	r := start(t, db, agent.Config{Budget: -1})
	name := unique("pdd")
	spec := fmt.Sprintf("syscall.ops[execname=%s][name]", name)
	from := time.Now()
	if _, err := r.a.Create(spec, analytics.Archived); err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.SetState("io.ops", analytics.Suspended); err != nil {
		t.Fatal(err)
	}
	runDD(t, dd(t, name), 4321)
	settle(t, r.a, spec)
	r.stop()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	r2 := start(t, openStore(t, dir), agent.Config{Budget: -1})
	states := map[string]analytics.State{}
	for _, d := range r2.a.Datasets() {
		states[d.Name] = d.State
	}
	if states[spec] != analytics.Archived || states["io.ops"] != analytics.Suspended || states["syscall.ops"] != analytics.Archived {
		t.Errorf("states after restart: %v", states)
	}
	if writes, _ := total(t, r2.a, spec, from, "write"); writes != 4321 {
		t.Errorf("%d writes after restart, want 4321", writes)
	}
}

// With a tiny budget, a dataset that costs anything is suspended and an
// event says why.
func TestAutoSuspend(t *testing.T) {
	r := start(t, openStore(t, t.TempDir()), agent.Config{Budget: 1e-9})
	name := unique("bdd")
	spec := fmt.Sprintf("syscall.ops[execname=%s]", name)
	if _, err := r.a.Create(spec, analytics.Archived); err != nil {
		t.Fatal(err)
	}
	path := dd(t, name)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		runDD(t, path, 20000)
		if d, _ := r.a.Dataset(spec); d.State == analytics.Suspended {
			break
		}
	}
	d, _ := r.a.Dataset(spec)
	if d.State != analytics.Suspended {
		t.Fatalf("not suspended: %+v", d)
	}
	found := false
	for _, e := range r.a.Events() {
		if e.Kind == "auto-suspended" && (e.Dataset == spec || e.Dataset == "syscall.ops") {
			found = true
			t.Logf("%s %s: %s", e.Kind, e.Dataset, e.Message)
		}
	}
	if !found {
		t.Errorf("no auto-suspended event: %+v", r.a.Events())
	}
}

// Bad D in a user statistic gets a 400 with the compiler's positioned
// message, and destructive actions are refused.
func TestDefineErrors(t *testing.T) {
	r := start(t, openStore(t, t.TempDir()), agent.Config{Budget: -1})
	for _, c := range []struct{ src, want string }{
		{`syscall::read:entry { @a[execname] = count( }`, "1:"},
		{`syscall::read:entry { system("true"); @a = count(); }`, "destructive"},
	} {
		_, err := r.a.DefineStatistic("my.bad", "", c.src)
		var ae *analytics.Error
		if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, c.want) {
			t.Errorf("%s: %v, want a 400 with %q", c.src, err, c.want)
		}
	}
	st, err := r.a.DefineStatistic("my.reads", "reads by process", `syscall::read:entry { @a[execname] = count(); }`)
	if err != nil {
		t.Fatal(err)
	}
	name := unique("udd")
	spec := fmt.Sprintf("%s[execname=%s][execname]", st.Name, name)
	from := time.Now()
	d, err := r.a.Create(spec, analytics.Open)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%q", name); !strings.Contains(d.Program, want) {
		t.Errorf("the user statistic's drill-down has no predicate on %s:\n%s", want, d.Program)
	}
	runDD(t, dd(t, name), 300)
	settle(t, r.a, spec)
	if reads, secs := total(t, r.a, spec, from, name); reads < 300 || reads > 300+100 {
		t.Errorf("%d reads by %s, want 300 (and the dynamic linker's few): %+v", reads, name, secs)
	}
	if others, _ := total(t, r.a, spec, from, ""); others != func() int64 { n, _ := total(t, r.a, spec, from, name); return n }() {
		t.Errorf("the drill-down counted other processes: %d in all", others)
	}
}
