package agent

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/stats"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

type rig struct {
	a   *Agent
	st  *MemStore
	k   *kernel
	clk *clock
	cat *fakeCat
}

// newRig starts an agent on a fresh (initialised) or given store, at
// t0+300ms.
func newRig(t *testing.T, st *MemStore, cfg Config) *rig {
	t.Helper()
	if st == nil {
		st = NewMemStore()
		st.meta[keyInit] = []byte("test")
	}
	r := &rig{st: st, k: newKernel(), clk: &clock{t: t0.Add(300 * time.Millisecond)}, cat: &fakeCat{}}
	cfg.Now = r.clk.Now
	a, err := newAgent(cfg, st, r.cat, r.k.start)
	if err != nil {
		t.Fatal(err)
	}
	a.checkD = func(src string) error {
		if !strings.Contains(src, "@") {
			return &analytics.Error{Status: 400, Message: "no aggregation"}
		}
		return nil
	}
	r.a = a
	t.Cleanup(func() { a.Close() })
	return r
}

// second moves the clock to the next boundary (plus 10ms) and ticks.
func (r *rig) second() {
	now := r.clk.advance(time.Second)
	r.a.Tick(now)
}

func (r *rig) create(t *testing.T, spec string, state analytics.State) analytics.Dataset {
	t.Helper()
	d, err := r.a.Create(spec, state)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (r *rig) data(t *testing.T, name string, from time.Time, n int, g analytics.Granularity) []analytics.Second {
	t.Helper()
	secs, err := r.a.Data(context.Background(), name, from, n, g, false)
	if err != nil {
		t.Fatal(err)
	}
	return secs
}

// sum is the total of key's values over secs (every key if key is "*").
func sum(secs []analytics.Second, key string) int64 {
	var n int64
	for _, s := range secs {
		for _, r := range s.Rows {
			if key == "*" || strings.Join(r.Key, ",") == key {
				n += r.Value
			}
		}
	}
	return n
}

// The sum of a dataset's per-second values is the events that happened
// after it started: what its aggregation held before is its prime, and a
// key that counted nothing in a second is absent from it.
func TestExactAcrossSeconds(t *testing.T) {
	r := newRig(t, nil, Config{})
	r.k.add("fake.ops", "old", 1000) // before the dataset exists
	r.create(t, "fake.ops[k]", analytics.Archived)
	want := map[string]int64{}
	for i := 0; i < 10; i++ {
		r.k.add("fake.ops", "write", int64(i+1))
		want["write"] += int64(i + 1)
		if i%3 == 0 {
			r.k.add("fake.ops", "read", 7)
			want["read"] += 7
		}
		r.second()
	}
	secs := r.data(t, "fake.ops[k]", t0, 20, analytics.PerSecond)
	if len(secs) != 10 {
		t.Fatalf("%d seconds, want 10: %+v", len(secs), secs)
	}
	for k, n := range want {
		if got := sum(secs, k); got != n {
			t.Errorf("%s: %d over the seconds, want %d", k, got, n)
		}
	}
	if got := sum(secs, "old"); got != 0 {
		t.Errorf("the count before the dataset started shows as %d", got)
	}
	for i, s := range secs {
		if !s.Time.Equal(t0.Add(time.Duration(i) * time.Second)) {
			t.Errorf("second %d starts at %v", i, s.Time)
		}
		for _, row := range s.Rows {
			if row.Value == 0 {
				t.Errorf("second %d has a zero row %v", i, row.Key)
			}
		}
		if reads := sum(secs[i:i+1], "read"); (i%3 == 0) != (reads == 7) {
			t.Errorf("second %d: reads %d", i, reads)
		}
	}
}

// Distributions are the second's buckets with the scale's ranges.
func TestDistribution(t *testing.T) {
	r := newRig(t, nil, Config{})
	r.k.addBucket("fake.lat", "", 3, 9)
	r.create(t, "fake.lat", analytics.Archived)
	r.k.addBucket("fake.lat", "", 3, 2)
	r.k.addBucket("fake.lat", "", 5, 4)
	r.second()
	secs := r.data(t, "fake.lat", t0, 1, analytics.PerSecond)
	if len(secs) != 1 || len(secs[0].Rows) != 1 {
		t.Fatalf("got %+v", secs)
	}
	row := secs[0].Rows[0]
	want := []analytics.Bucket{{Index: 3, Min: 30, Max: 40, Count: 2}, {Index: 5, Min: 50, Max: 60, Count: 4}}
	if row.Value != 6 || len(row.Buckets) != 2 || row.Buckets[0] != want[0] || row.Buckets[1] != want[1] {
		t.Errorf("row = %+v, want value 6 and buckets %+v", row, want)
	}
}

// Past the key limit the smallest keys of the second are summed into
// "other", and the dataset counts them: nothing is dropped.
func TestKeyLimit(t *testing.T) {
	r := newRig(t, nil, Config{KeyLimit: 3})
	r.create(t, "fake.ops[k]", analytics.Archived)
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		r.k.add("fake.ops", k, int64(10*(i+1)))
	}
	r.second()
	secs := r.data(t, "fake.ops[k]", t0, 1, analytics.PerSecond)
	rows := secs[0].Rows
	if len(rows) != 3 || rows[0].Key[0] != "d" || rows[1].Key[0] != "e" || rows[2].Key[0] != analytics.Other || rows[2].Value != 60 {
		t.Errorf("rows = %+v, want d, e and other=60", rows)
	}
	if s := sum(secs, "*"); s != 150 {
		t.Errorf("total %d, want 150", s)
	}
	d, _ := r.a.Dataset("fake.ops[k]")
	if d.Overflow != 3 {
		t.Errorf("overflow %d, want 3", d.Overflow)
	}
}

// Suspending keeps what was counted in the current second; nothing is
// counted while suspended; resuming primes again (no huge delta), and a
// resumption in the same second adds to it.
func TestSuspendResume(t *testing.T) {
	r := newRig(t, nil, Config{})
	r.create(t, "fake.ops[k]", analytics.Archived)
	r.k.add("fake.ops", "x", 4)
	r.second() // [t0, t0+1): 4
	r.k.add("fake.ops", "x", 6)
	r.clk.advance(200 * time.Millisecond)
	if d, err := r.a.SetState("fake.ops[k]", analytics.Suspended); err != nil || d.State != analytics.Suspended {
		t.Fatalf("suspend: %v %+v", err, d)
	}
	if r.k.live["fake.ops"] != 0 {
		t.Errorf("the collector still runs while suspended")
	}
	r.k.add("fake.ops", "x", 1000) // not collected
	r.clk.advance(100 * time.Millisecond)
	if _, err := r.a.SetState("fake.ops[k]", analytics.Archived); err != nil {
		t.Fatal(err)
	}
	r.k.add("fake.ops", "x", 1)
	r.second() // [t0+1, t0+2): 6 + 1
	r.second() // nothing
	r.k.add("fake.ops", "x", 2)
	r.second()
	secs := r.data(t, "fake.ops[k]", t0, 10, analytics.PerSecond)
	var got []int64
	for _, s := range secs {
		got = append(got, sum([]analytics.Second{s}, "x"))
	}
	if len(got) != 4 || got[0] != 4 || got[1] != 7 || got[2] != 0 || got[3] != 2 {
		t.Errorf("x by second = %v, want [4 7 0 2]", got)
	}
	var kinds []string
	for _, e := range r.a.Events() {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "created,suspended,resumed" {
		t.Errorf("events %v", kinds)
	}
}

// An open dataset is served from memory, as seconds and rolled up.
func TestOpenInMemory(t *testing.T) {
	r := newRig(t, nil, Config{Memory: 100})
	r.create(t, "fake.ops[k]", analytics.Open)
	for i := 0; i < 90; i++ {
		r.k.add("fake.ops", "x", 1)
		r.second()
	}
	if n := len(r.st.secs["fake.ops[k]"]); n != 0 {
		t.Errorf("an open dataset wrote %d seconds to the store", n)
	}
	secs := r.data(t, "fake.ops[k]", time.Time{}, 5, analytics.PerSecond)
	if len(secs) != 5 || sum(secs, "x") != 5 || !secs[4].Time.Equal(t0.Add(89*time.Second)) {
		t.Errorf("last 5 seconds: %+v", secs)
	}
	mins := r.data(t, "fake.ops[k]", t0, 2, analytics.PerMinute)
	if len(mins) != 2 || mins[0].Samples != 60 || sum(mins[:1], "x") != 60 || sum(mins[1:], "x") != 30 {
		t.Errorf("minutes: %+v", mins)
	}
	d, _ := r.a.Dataset("fake.ops[k]")
	if d.InCore == 0 {
		t.Errorf("an open dataset with data shows no bytes in core")
	}
	// Archiving it writes what memory holds to the store.
	if _, err := r.a.SetState("fake.ops[k]", analytics.Archived); err != nil {
		t.Fatal(err)
	}
	r.k.add("fake.ops", "x", 1)
	r.second()
	if n := len(r.st.secs["fake.ops[k]"]); n != 91 {
		t.Errorf("%d seconds in the store after archiving, want 91", n)
	}
}

// A restarted agent keeps its datasets, their states, users' statistics,
// worksheets and events; the defaults are created on the first start only.
func TestRestart(t *testing.T) {
	st := NewMemStore()
	r := newRig(t, st, Config{})
	var names []string
	for _, d := range r.a.Datasets() {
		names = append(names, d.Name)
	}
	if strings.Join(names, " ") != strings.Join(sortedDefaults(), " ") {
		t.Fatalf("first start: datasets %v, want the defaults %v", names, sortedDefaults())
	}
	r.create(t, "fake.ops[k]", analytics.Archived)
	r.create(t, "fake.lat", analytics.Open)
	if _, err := r.a.SetState("syscall.ops", analytics.Suspended); err != nil {
		t.Fatal(err)
	}
	if err := r.a.Destroy("io.ops"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.DefineStatistic("my.stat", "mine", `syscall::read:entry { @a[execname] = count(); }`); err != nil {
		t.Fatal(err)
	}
	w, err := r.a.SaveWorksheet(analytics.Worksheet{Name: "w", Datasets: []string{"fake.ops[k]"}})
	if err != nil {
		t.Fatal(err)
	}
	r.k.add("fake.ops", "x", 3)
	r.second()
	r.a.Close()

	r2 := newRig(t, st, Config{})
	got := map[string]analytics.State{}
	for _, d := range r2.a.Datasets() {
		got[d.Name] = d.State
	}
	if got["fake.ops[k]"] != analytics.Archived || got["fake.lat"] != analytics.Open || got["syscall.ops"] != analytics.Suspended {
		t.Errorf("states after restart: %v", got)
	}
	if _, ok := got["io.ops"]; ok {
		t.Errorf("a destroyed dataset came back")
	}
	if len(got) != len(stats.Defaults())+1 {
		t.Errorf("%d datasets after restart: %v", len(got), got)
	}
	if r2.cat.user["my.stat"] == "" {
		t.Errorf("the user's statistic was not defined again")
	}
	if ws := r2.a.Worksheets(); len(ws) != 1 || ws[0].ID != w.ID {
		t.Errorf("worksheets %+v", ws)
	}
	if len(r2.a.Events()) < 4 {
		t.Errorf("events after restart: %+v", r2.a.Events())
	}
	if n := sum(r2.data(t, "fake.ops[k]", t0, 5, analytics.PerSecond), "x"); n != 3 {
		t.Errorf("data after restart: %d, want 3", n)
	}
}

// A dataset's id (dataset-NNN) is given when it is created and never
// changes or comes back: it was its place in the list by name, so that
// creating "a.b" made "destroy dataset-003" destroy another dataset.
// Datasets kept before ids were kept get their places by name, the ids
// they were shown.
func TestDatasetIDs(t *testing.T) {
	st := NewMemStore()
	st.meta[keyInit] = []byte("test")
	st.meta[keyDataset+"fake.ops[k]"] = []byte(`{"name":"fake.ops[k]","state":"archived","created":"2025-03-01T12:00:00Z"}`)
	st.meta[keyDataset+"fake.lat"] = []byte(`{"name":"fake.lat","state":"archived","created":"2025-03-01T12:00:00Z"}`)
	ids := func(a *Agent) map[string]int {
		m := map[string]int{}
		for _, d := range a.Datasets() {
			m[d.Name] = d.ID
		}
		return m
	}
	r := newRig(t, st, Config{})
	if got := ids(r.a); got["fake.lat"] != 0 || got["fake.ops[k]"] != 1 {
		t.Fatalf("ids of datasets kept without them: %v", got)
	}
	if d := r.create(t, "fake.ops", analytics.Archived); d.ID != 2 {
		t.Errorf("new dataset: id %d, want 2", d.ID)
	}
	if err := r.a.Destroy("fake.ops"); err != nil {
		t.Fatal(err)
	}
	if d := r.create(t, "fake.lat[k]", analytics.Archived); d.ID != 3 {
		t.Errorf("after a destroy: id %d, want 3 (2 is not reused)", d.ID)
	}
	r.a.Close()
	r2 := newRig(t, st, Config{})
	want := map[string]int{"fake.lat": 0, "fake.ops[k]": 1, "fake.lat[k]": 3}
	if got := ids(r2.a); len(got) != 3 || got["fake.lat"] != 0 || got["fake.ops[k]"] != 1 || got["fake.lat[k]"] != 3 {
		t.Errorf("after a restart: %v, want %v", got, want)
	}
	if d := r2.create(t, "fake.ops", analytics.Archived); d.ID != 4 {
		t.Errorf("after a restart: new id %d, want 4", d.ID)
	}
}

func sortedDefaults() []string {
	d := append([]string(nil), stats.Defaults()...)
	sortStrings(d)
	return d
}

// A dataset whose BPF cost puts the total over the budget is suspended,
// and an event says so; it stays suspended after a restart.
func TestAutoSuspend(t *testing.T) {
	r := newRig(t, nil, Config{Budget: 0.001}) // 1 ms of CPU a second
	r.create(t, "fake.ops", analytics.Archived)
	r.create(t, "fake.cheap", analytics.Archived)
	for i := 0; i < 10; i++ {
		r.k.add("fake.ops", "", 100_000) // 10 ms of BPF time a second
		r.k.add("fake.cheap", "", 1)
		r.second()
	}
	d, _ := r.a.Dataset("fake.ops")
	if d.State != analytics.Suspended {
		t.Fatalf("state %s, want suspended", d.State)
	}
	if c, _ := r.a.Dataset("fake.cheap"); c.State != analytics.Archived {
		t.Errorf("the cheap dataset was suspended too")
	}
	var ev *analytics.Event
	for _, e := range r.a.Events() {
		if e.Kind == "auto-suspended" {
			ev = &e
		}
	}
	if ev == nil || ev.Dataset != "fake.ops" || !strings.Contains(ev.Message, "budget") {
		t.Errorf("no auto-suspended event for fake.ops: %+v", r.a.Events())
	}
	secs := r.data(t, "fake.ops", t0, 20, analytics.PerSecond)
	if n := sum(secs, "*"); n%100_000 != 0 || n == 0 {
		t.Errorf("the suspended dataset kept %d events", n)
	}
}

// The budget never suspends a dataset kept on (the defaults): it suspends
// the dearest of the others, even a cheaper one (before, the default
// syscall.ops was suspended under a syscall storm, when it matters most).
func TestAutoSuspendKeepsDefaults(t *testing.T) {
	r := newRig(t, nil, Config{Budget: 0.001, KeepOn: []string{"fake.ops"}})
	r.create(t, "fake.ops", analytics.Archived)
	r.create(t, "fake.cheap", analytics.Archived)
	for i := 0; i < 10; i++ {
		r.k.add("fake.ops", "", 100_000)
		r.k.add("fake.cheap", "", 1)
		r.second()
	}
	if d, _ := r.a.Dataset("fake.ops"); d.State != analytics.Archived {
		t.Errorf("the dataset kept on is %s", d.State)
	}
	if d, _ := r.a.Dataset("fake.cheap"); d.State != analytics.Suspended {
		t.Errorf("the other dataset is %s, want suspended", d.State)
	}
}

// A read that reaches the current second waits for it; a cancelled one
// returns.
func TestDataWait(t *testing.T) {
	r := newRig(t, nil, Config{})
	r.create(t, "fake.ops[k]", analytics.Archived)
	r.k.add("fake.ops", "x", 2)
	got := make(chan []analytics.Second)
	go func() {
		secs, _ := r.a.Data(context.Background(), "fake.ops[k]", t0, 1, analytics.PerSecond, true)
		got <- secs
	}()
	select {
	case s := <-got:
		t.Fatalf("returned before the second was over: %+v", s)
	case <-time.After(50 * time.Millisecond):
	}
	r.second()
	if secs := <-got; sum(secs, "x") != 2 {
		t.Errorf("waited read: %+v", secs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.a.Data(ctx, "fake.ops[k]", r.clk.Now(), 1, analytics.PerSecond, true); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}

// The caller's errors have their status; a dataset that cannot start on
// load is reported and shown suspended.
func TestErrors(t *testing.T) {
	r := newRig(t, nil, Config{})
	r.create(t, "fake.ops[k]", analytics.Archived)
	status := func(err error) int {
		var ae *analytics.Error
		if errors.As(err, &ae) {
			return ae.Status
		}
		return 0
	}
	if _, err := r.a.Create("fake.ops[k]", ""); status(err) != http.StatusConflict {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := r.a.Create("nodot", ""); status(err) != http.StatusBadRequest {
		t.Errorf("bad spec: %v", err)
	}
	if _, err := r.a.Create("bad.stat", ""); status(err) != http.StatusBadRequest {
		t.Errorf("bad statistic: %v", err)
	}
	if _, err := r.a.Create("fake.x", "bogus"); status(err) != http.StatusBadRequest {
		t.Errorf("bad state: %v", err)
	}
	if _, err := r.a.Dataset("fake.none"); status(err) != http.StatusNotFound {
		t.Errorf("unknown: %v", err)
	}
	if _, err := r.a.Data(context.Background(), "fake.ops[k]", t0, 0, analytics.PerSecond, false); status(err) != http.StatusBadRequest {
		t.Errorf("n=0: %v", err)
	}
	if err := r.a.DeleteWorksheet("nope"); status(err) != http.StatusNotFound {
		t.Errorf("unknown worksheet: %v", err)
	}
	r.a.Close()

	r2 := newRig(t, r.st, Config{})
	_ = r2
	k := newKernel()
	k.failing["fake.ops"] = true
	a, err := newAgent(Config{Now: r.clk.Now}, r.st, &fakeCat{}, k.start)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	d, _ := a.Dataset("fake.ops[k]")
	if d.State != analytics.Suspended {
		t.Errorf("a dataset that failed to start shows %s", d.State)
	}
	evs := a.Events()
	if e := evs[len(evs)-1]; e.Kind != "error" || !strings.Contains(e.Message, "refused") {
		t.Errorf("last event %+v", e)
	}
}

// The store's corrupt chunks are reported as events.
func TestCorruptEvents(t *testing.T) {
	r := newRig(t, nil, Config{})
	r.st.Corrupted = []string{"chunk 7 of io.ops"}
	r.second()
	r.second()
	n := 0
	for _, e := range r.a.Events() {
		if e.Kind == "corrupt-chunk" && strings.Contains(e.Message, "chunk 7") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d corrupt-chunk events, want 1", n)
	}
}

// A dataset that keeps failing to read is reported once, not every
// second; aggregation drops are counted across a suspension (each session
// counts from zero) and reported.
func TestErrorsAndDropsReported(t *testing.T) {
	r := newRig(t, nil, Config{})
	r.create(t, "fake.ops[k]", analytics.Archived)
	r.k.errs["fake.ops"] = errors.New("map gone")
	for i := 0; i < 5; i++ {
		r.second()
	}
	n := 0
	for _, e := range r.a.Events() {
		if e.Kind == "error" && strings.Contains(e.Message, "map gone") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d error events for one lasting error, want 1", n)
	}
	r.k.errs["fake.ops"] = nil
	r.k.drops["fake.ops"] = 7
	r.second()
	if _, err := r.a.SetState("fake.ops[k]", analytics.Suspended); err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.SetState("fake.ops[k]", analytics.Archived); err != nil {
		t.Fatal(err)
	}
	r.k.drops["fake.ops"] = 2
	r.clk.advance(2 * time.Minute)
	r.second()
	d, _ := r.a.Dataset("fake.ops[k]")
	if d.Dropped != 9 {
		t.Errorf("dropped %d, want 7+2", d.Dropped)
	}
	var drops []string
	for _, e := range r.a.Events() {
		if e.Kind == "drops" {
			drops = append(drops, e.Message)
		}
	}
	if len(drops) != 2 || !strings.HasPrefix(drops[0], "7 ") || !strings.HasPrefix(drops[1], "2 ") {
		t.Errorf("drop events %q, want 7 then 2", drops)
	}
}

// A gauge read by the minute is the mean of its seconds, not their sum
// (cpu.utilization was summed before: 60 seconds at 50% read as 3000%).
func TestGaugeAverage(t *testing.T) {
	secs := []analytics.Second{
		{Samples: 60, Rows: []analytics.Row{{Value: 60 * 5000}, {Key: []string{"user"}, Value: 60*2500 + 29}}},
		{Samples: 1, Rows: []analytics.Row{{Value: 7}}},
		{Samples: 4, Rows: []analytics.Row{{Value: -10}}},
	}
	averageGauge(secs)
	if got := []int64{secs[0].Rows[0].Value, secs[0].Rows[1].Value, secs[1].Rows[0].Value, secs[2].Rows[0].Value}; got[0] != 5000 || got[1] != 2500 || got[2] != 7 || got[3] != -3 {
		t.Errorf("averages = %v, want [5000 2500 7 -3]", got)
	}
}
