package remotewrite

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// source: one counter dataset, 10 writes a second, sampled to end.
type source struct {
	mu      sync.Mutex
	created time.Time
	end     time.Time
}

var stat = analytics.Statistic{Name: "syscall.ops", Kind: analytics.Counter, Breakdowns: []analytics.Breakdown{{Name: "name"}}}

func (s *source) Statistics() []analytics.Statistic { return []analytics.Statistic{stat} }
func (s *source) Datasets() []analytics.Dataset {
	return []analytics.Dataset{{Name: "syscall.ops[name]", Statistic: "syscall.ops", Breakdowns: []string{"name"}, Created: s.created, Export: true}}
}
func (s *source) Sampled() time.Time { s.mu.Lock(); defer s.mu.Unlock(); return s.end }

// Data: 10 writes in every second of [created, end), summed over each
// interval of g (as the agent's tiers).
func (s *source) Data(_ context.Context, _ string, start time.Time, n int, g analytics.Granularity, _ bool) ([]analytics.Second, error) {
	w := g.Width()
	end := s.Sampled()
	var out []analytics.Second
	for i := 0; i < n; i++ {
		from := start.Add(time.Duration(i) * w)
		var count int64
		for at := from; at.Before(from.Add(w)); at = at.Add(time.Second) {
			if !at.Before(s.created) && at.Before(end) {
				count += 10
			}
		}
		if count > 0 {
			out = append(out, analytics.Second{Time: from, Samples: 1, Rows: []analytics.Row{{Key: []string{"write"}, Value: count}}})
		}
	}
	return out, nil
}

// meta is an in-memory Meta.
type meta map[string][]byte

func (m meta) PutMeta(k string, v []byte) error { m[k] = append([]byte(nil), v...); return nil }
func (m meta) GetMeta(k string) ([]byte, error) { return m[k], nil }

// receiver decodes what it is sent, answering each request with the
// next status of a script (200 when the script is done), and keeps the
// write counter's samples it acknowledged.
type receiver struct {
	mu      sync.Mutex
	script  []int
	samples map[int64]float64 // timestamp (ms) -> value
	auth    []string
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	status := 200
	if len(r.script) > 0 {
		status, r.script = r.script[0], r.script[1:]
	}
	if status != 200 {
		http.Error(w, "scripted", status)
		return
	}
	body, _ := io.ReadAll(req.Body)
	raw, err := snappy.Decode(nil, body)
	if err != nil || req.Header.Get("Content-Encoding") != "snappy" {
		http.Error(w, "not snappy", 400)
		return
	}
	var wr prompb.WriteRequest
	if err := wr.Unmarshal(raw); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	for _, ts := range wr.Timeseries {
		name, key := "", ""
		for _, l := range ts.Labels {
			switch l.Name {
			case "__name__":
				name = l.Value
			case "name":
				key = l.Value
			}
		}
		if name == "sonde_syscall_ops_total" && key == "write" {
			for _, s := range ts.Samples {
				r.samples[s.Timestamp] = s.Value
			}
		}
	}
}

func (r *receiver) check(t *testing.T, from, to time.Time) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for at := from; !at.After(to); at = at.Add(time.Second) {
		want := float64(10 * (int(at.Sub(from)/time.Second) + 1))
		if v, ok := r.samples[at.Add(time.Second).UnixMilli()]; !ok || v != want {
			t.Errorf("second %s: received %v (%v), want %v", at.Format(time.TimeOnly), v, ok, want)
		}
	}
}

// Failed requests are sent again and nothing is lost; a refused request
// is counted and passed; a writer made again from the same state goes on
// with the same totals; the bearer token is sent.
func TestWriter(t *testing.T) {
	t0 := time.Now().Truncate(time.Second).Add(-20 * time.Second)
	src := &source{created: t0, end: t0.Add(5 * time.Second)}
	rcv := &receiver{samples: map[int64]float64{}, script: []int{503, 500}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	m := meta{}
	cfg := Config{URL: srv.URL, Host: "h", BearerToken: "tok", MaxSamples: 3}
	w, err := New(src, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	step := func(w *Writer) (bool, error) { return w.Step(context.Background()) }
	if _, err := step(w); err == nil {
		t.Fatal("a 503 was not a failure")
	}
	if _, err := step(w); err == nil {
		t.Fatal("a 500 was not a failure")
	}
	for more := true; more; {
		if more, err = step(w); err != nil {
			t.Fatal(err)
		}
	}
	rcv.check(t, t0, t0.Add(4*time.Second))
	if st := w.Stats(); st.Failures != 2 || st.Rejected != 0 || !st.Next.Equal(t0.Add(5*time.Second)) {
		t.Errorf("stats %+v", st)
	}

	// a new writer (sonded restarted) on the same state
	src.mu.Lock()
	src.end = t0.Add(10 * time.Second)
	src.mu.Unlock()
	w2, err := New(src, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for more := true; more; {
		if more, err = step(w2); err != nil {
			t.Fatal(err)
		}
	}
	rcv.check(t, t0, t0.Add(9*time.Second))

	// a request refused as bad is counted and passed
	rcv.mu.Lock()
	rcv.script = []int{400}
	rcv.mu.Unlock()
	src.mu.Lock()
	src.end = t0.Add(11 * time.Second)
	src.mu.Unlock()
	if _, err := step(w2); err != nil {
		t.Fatal(err)
	}
	if st := w2.Stats(); st.Rejected != 2 { // the second's write and folded-rows samples
		t.Errorf("rejected %d samples, want 2", st.Rejected)
	}
	for _, a := range rcv.auth {
		if a != "Bearer tok" {
			t.Errorf("Authorization %q", a)
		}
	}
}

// Seconds older than MaxCatchUp are added to the totals (through the
// minute and hour tiers) but not sent.
func TestCatchUpLimit(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	t0 := now.Add(-2*time.Hour - 90*time.Second) // across hours and minutes
	src := &source{created: t0, end: now}
	rcv := &receiver{samples: map[int64]float64{}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	m := meta{}
	w, err := New(src, m, Config{URL: srv.URL, Host: "h", MaxCatchUp: 10 * time.Second, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for more := true; more; {
		if more, err = w.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.samples) != 10 {
		t.Errorf("%d seconds sent, want the last 10", len(rcv.samples))
	}
	total := float64(10 * int(now.Sub(t0)/time.Second))
	if v := rcv.samples[now.UnixMilli()]; v != total {
		t.Errorf("the last sample is %v, want every second's since the dataset's creation: %v", v, total)
	}
	if st := w.Stats(); st.Skipped != int64(now.Sub(t0)/time.Second)-10 {
		t.Errorf("skipped %d seconds, want %d", st.Skipped, int64(now.Sub(t0)/time.Second)-10)
	}
}
