package alert

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// The default capture is of the offending process: the execname or pid
// of the alert's key, or of the dataset's filter; the whole machine
// otherwise. Keys are quoted as D strings.
func TestDefaultProgram(t *testing.T) {
	for _, c := range []struct {
		ds   analytics.Dataset
		key  []string
		want string
	}{
		{analytics.Dataset{Breakdowns: []string{"execname"}}, []string{`d"d`}, `profile-997 /execname == "d\"d"/ { @[ustack(), stack()] = count(); }`},
		{analytics.Dataset{Breakdowns: []string{"name", "pid"}}, []string{"write", "42"}, `profile-997 /pid == 42/ { @[ustack(), stack()] = count(); }`},
		{analytics.Dataset{Breakdowns: []string{"pid"}}, []string{"4x"}, `profile-997 { @[execname, ustack(), stack()] = count(); }`},
		{analytics.Dataset{Filters: []analytics.Filter{{Breakdown: "execname", Value: "dd"}}, Breakdowns: []string{"name"}}, []string{"write"},
			`profile-997 /execname == "dd"/ { @[ustack(), stack()] = count(); }`},
		{analytics.Dataset{}, nil, `profile-997 { @[execname, ustack(), stack()] = count(); }`},
	} {
		if got := defaultProgram(c.ds, c.key); got != c.want {
			t.Errorf("%+v %q: %s, want %s", c.ds, c.key, got, c.want)
		}
	}
}

// fakeCapture records the programs run and returns folded stacks.
type fakeCapture struct {
	mu   sync.Mutex
	ran  []string
	fail error
}

func (f *fakeCapture) run(ctx context.Context, src string, d time.Duration) (CaptureResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, src)
	if f.fail != nil {
		return CaptureResult{}, f.fail
	}
	return CaptureResult{Folded: []byte("main;spin 7\nmain;work 3\n"), Output: []byte("printed\n")}, nil
}

// A capture runs when the alert posts (not on re-notifications), and its
// parts are served under the event; an evicted event's parts go with it.
func TestCaptureAttached(t *testing.T) {
	fc := &fakeCapture{}
	r := newRig(t, Config{Retries: -1, Capture: fc.run, CheckProgram: func(string) error { return nil }}, "fake.ops[execname]")
	th := r.threshold(t, Threshold{Statname: "fake.ops[execname]", Limit: 100, Minpost: 1, Minclear: 1, Frequency: 1, PerKey: true})
	a, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Capture, Seconds: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	item := a.Items[0]
	if item.Seconds != 3 || item.Retries == nil || *item.Retries != 0 || !item.Post {
		t.Errorf("item %+v", item)
	}
	r.keyed("fake.ops[execname]", sec(0), map[string]int64{"dd": 500})
	r.keyed("fake.ops[execname]", sec(1), map[string]int64{"dd": 500}) // re-notifies: no capture
	r.e.Wait()
	if len(fc.ran) != 1 || fc.ran[0] != `profile-997 /execname == "dd"/ { @[ustack(), stack()] = count(); }` {
		t.Errorf("ran %q", fc.ran)
	}
	ev := r.e.Events()[0]
	if len(ev.Captures) != 1 {
		t.Fatalf("captures %+v", ev.Captures)
	}
	c := ev.Captures[0]
	base := Prefix + "/events/" + ev.ID + "/captures/" + item.ID + "/"
	if c.Stacks != 2 || c.Samples != 10 || c.Folded != base+"folded" || c.SVG != base+"svg" || c.Output != base+"output" || c.What != "post" {
		t.Errorf("capture %+v", c)
	}
	for part, want := range map[string]string{"folded": "main;spin 7\n", "svg": "<title>spin (7 samples, 70.00%)</title>", "output": "printed"} {
		w := httptest.NewRecorder()
		r.e.Handler().ServeHTTP(w, httptest.NewRequest("GET", base+part, nil))
		if w.Code != 200 || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d %s", part, w.Code, w.Body)
		}
	}
	w := httptest.NewRecorder()
	r.e.Handler().ServeHTTP(w, httptest.NewRequest("GET", Prefix+"/events/"+ev.ID+"/captures/nosuch/svg", nil))
	if w.Code != http.StatusNotFound {
		t.Errorf("no such capture: %d", w.Code)
	}
	// Evicted with its event.
	r.e.mu.Lock()
	for i := 0; i < maxEvents; i++ {
		r.e.newEvent(&th, nil, 0, sec(10))
	}
	r.e.mu.Unlock()
	r.e.Wait()
	if keys, _ := r.m.ListMeta(keyCapture); len(keys) != 0 {
		t.Errorf("left after eviction: %v", keys)
	}
}

// Captures are kept within MaxCaptureBytes: past it, the oldest captures'
// parts are deleted, and their records say so; an engine started on a
// store past its (smaller) budget trims it the same way.
func TestCaptureBudget(t *testing.T) {
	out := func(ctx context.Context, src string, d time.Duration) (CaptureResult, error) {
		return CaptureResult{Output: []byte(strings.Repeat("x", 1000))}, nil
	}
	r := newRig(t, Config{Retries: -1, Capture: out, CheckProgram: func(string) error { return nil }, MaxCaptureBytes: 2500}, "fake.ops[execname]")
	th := r.threshold(t, Threshold{Statname: "fake.ops[execname]", Limit: 100, Minpost: 1, Minclear: 1, Frequency: 1, PerKey: true})
	if _, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Capture, Seconds: 1}}}); err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{"a", "b", "c"} {
		r.keyed("fake.ops[execname]", sec(i), map[string]int64{k: 500})
		r.e.Wait()
	}
	evs := r.e.Events()
	if len(evs) != 3 {
		t.Fatalf("%d events", len(evs))
	}
	var kept int64
	for i, ev := range evs {
		if len(ev.Captures) != 1 {
			t.Fatalf("event %d: captures %+v", i, ev.Captures)
		}
		c := ev.Captures[0]
		if gone := i == 0; c.Discarded != gone || (c.Output == "") != gone || (c.Bytes == 0) != gone {
			t.Errorf("event %d (oldest first): capture %+v", i, c)
		}
		kept += c.Bytes
	}
	if kept != 2000 {
		t.Errorf("%d bytes kept, want 2000", kept)
	}
	if keys, _ := r.m.ListMeta(keyCapture); len(keys) != 2 {
		t.Errorf("parts kept: %v", keys)
	}

	// A restart with a budget of one capture.
	r.e.Close()
	e, err := New(Config{Meta: r.m, Datasets: r.ds, Now: r.clk.Now, MaxCaptureBytes: 1500, Capture: out})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Wait()
	evs = e.Events()
	if !evs[1].Captures[0].Discarded || evs[2].Captures[0].Discarded {
		t.Errorf("after a restart within 1500 bytes: %+v, %+v", evs[1].Captures[0], evs[2].Captures[0])
	}
	if keys, _ := r.m.ListMeta(keyCapture); len(keys) != 1 {
		t.Errorf("parts kept after the restart: %v", keys)
	}
}

// A capture that fails is a failed attempt, with the reason; a capture
// item is refused on clear or with a negative length.
func TestCaptureFails(t *testing.T) {
	fc := &fakeCapture{fail: errors.New("capture: no BPF here")}
	r := newRig(t, Config{Retries: -1, Capture: fc.run, CheckProgram: func(string) error { return nil }}, "fake.ops")
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	a, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Capture, Seconds: 1, Program: "BEGIN { exit(0); }"}}})
	if err != nil {
		t.Fatal(err)
	}
	r.second("fake.ops", sec(0), 500)
	r.e.Wait()
	ev := r.e.Events()[0]
	if len(ev.Attempts) != 1 || ev.Attempts[0].Delivered || ev.Attempts[0].Error != "capture: no BPF here" || len(ev.Captures) != 0 {
		t.Errorf("event %+v", ev)
	}
	for _, it := range []Item{{Handler: Capture, Clear: true}, {Handler: Capture, Seconds: -1}, {Handler: Capture, Seconds: MaxCaptureSeconds + 1}} {
		if _, err := r.e.AddItem(a.ID, it); err == nil || status(err) != http.StatusBadRequest {
			t.Errorf("%+v: %v", it, err)
		}
	}
}

// At most MaxCaptures captures run at once: a per-key threshold posting
// for many keys in one second does not start a session for each; the
// ones past the limit fail, saying why.
func TestCaptureLimit(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	slow := func(ctx context.Context, src string, d time.Duration) (CaptureResult, error) {
		started <- struct{}{}
		<-release
		return CaptureResult{Folded: []byte("a 1\n")}, nil
	}
	r := newRig(t, Config{Retries: -1, Capture: slow, CheckProgram: func(string) error { return nil }, MaxCaptures: 2}, "fake.ops[execname]")
	th := r.threshold(t, Threshold{Statname: "fake.ops[execname]", Limit: 100, Minpost: 0, PerKey: true})
	if _, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Capture, Seconds: 1}}}); err != nil {
		t.Fatal(err)
	}
	r.keyed("fake.ops[execname]", sec(0), map[string]int64{"a": 500, "b": 500, "c": 500, "d": 500})
	<-started
	<-started
	// The two past the limit fail at once, while the two hold.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		failed := 0
		for _, ev := range r.e.Events() {
			for _, a := range ev.Attempts {
				if !a.Delivered && strings.Contains(a.Error, "at most 2 at once") {
					failed++
				}
			}
		}
		if failed == 2 {
			break
		}
	}
	close(release)
	r.e.Wait()
	delivered, failed := 0, 0
	for _, ev := range r.e.Events() {
		for _, a := range ev.Attempts {
			if a.Delivered {
				delivered++
			} else {
				failed++
			}
		}
	}
	if delivered != 2 || failed != 2 {
		t.Errorf("%d captures delivered and %d failed, want 2 and 2", delivered, failed)
	}
}
