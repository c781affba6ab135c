package promapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// source is a dataset of each kind with seconds given by the test.
type source struct {
	created time.Time
	sampled time.Time
	secs    map[string][]analytics.Second
	// pruned: a tier's intervals before its time are gone.
	pruned map[analytics.Granularity]time.Time
}

var testStats = []analytics.Statistic{
	{Name: "syscall.ops", Kind: analytics.Counter, Breakdowns: []analytics.Breakdown{{Name: "name"}}},
	{Name: "syscall.latency", Kind: analytics.Distribution, Unit: "nanoseconds"},
}

func (s *source) Statistics() []analytics.Statistic { return testStats }
func (s *source) Datasets() []analytics.Dataset {
	return []analytics.Dataset{
		{Name: "syscall.ops[name]", Statistic: "syscall.ops", Breakdowns: []string{"name"}, Created: s.created},
		{Name: "syscall.latency", Statistic: "syscall.latency", Created: s.created},
	}
}
func (s *source) Sampled() time.Time { return s.sampled }

// Data sums the seconds of each interval of g (as the agent's tiers).
func (s *source) Data(_ context.Context, name string, start time.Time, n int, g analytics.Granularity, _ bool) ([]analytics.Second, error) {
	w := g.Width()
	var out []analytics.Second
	if p, ok := s.pruned[g]; ok && start.Before(p) {
		if k := int(p.Sub(start) / w); k < n {
			start, n = start.Add(time.Duration(k)*w), n-k
		} else {
			return nil, nil
		}
	}
	if g == analytics.PerSecond {
		secs := s.secs[name]
		for _, sec := range secs {
			if !sec.Time.Before(start) && sec.Time.Before(start.Add(time.Duration(n)*w)) {
				out = append(out, sec)
			}
		}
		return out, nil
	}
	for i := 0; i < n; i++ {
		from := start.Add(time.Duration(i) * w)
		iv := analytics.Second{Time: from}
		for _, sec := range s.secs[name] {
			if !sec.Time.Before(from) && sec.Time.Before(from.Add(w)) {
				iv.Rows = append(iv.Rows, sec.Rows...)
				iv.Samples++
			}
		}
		if iv.Samples > 0 {
			out = append(out, iv)
		}
	}
	return out, nil
}

func newSource(t0 time.Time, n int) *source {
	s := &source{created: t0, sampled: t0.Add(time.Duration(n) * time.Second), secs: map[string][]analytics.Second{}}
	for i := 0; i < n; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		s.secs["syscall.ops[name]"] = append(s.secs["syscall.ops[name]"], analytics.Second{Time: at, Samples: 1,
			Rows: []analytics.Row{{Key: []string{"write"}, Value: int64(i + 1)}, {Key: []string{"read"}, Value: 2}}})
		s.secs["syscall.latency"] = append(s.secs["syscall.latency"], analytics.Second{Time: at, Samples: 1,
			Rows: []analytics.Row{{Value: 7, Buckets: []analytics.Bucket{{Min: 0, Max: 2, Count: 1}, {Min: 513, Max: 577, Count: 5}, {Min: 2097153, Max: 2359297, Count: 1}}}}})
	}
	return s
}

func get(t *testing.T, srv *httptest.Server, path string, v url.Values) map[string]any {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path + "?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %v: %s", path, err, body)
	}
	if out["status"] != "success" {
		t.Fatalf("%s %v: %s", path, v, body)
	}
	return out
}

// Counters are sums from the dataset's creation, read through the
// coarser tiers: the same at any query time whichever tiers hold the
// seconds before it; histograms answer histogram functions.
func TestQueries(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 58, 30, 0, time.UTC)
	n := 7300 // across two hour boundaries
	a, err := New(newSource(t0, n), Config{Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	for _, k := range []int{1, 90, 3700, 7299} {
		at := t0.Add(time.Duration(k) * time.Second)
		r := get(t, srv, "/api/v1/query", url.Values{"query": {`sonde_syscall_ops_total{name="write"}`}, "time": {at.Format(time.RFC3339)}})
		res := r["data"].(map[string]any)["result"].([]any)
		if len(res) != 1 {
			t.Fatalf("at %d s: %v", k, r)
		}
		got := res[0].(map[string]any)["value"].([]any)[1]
		want := k * (k + 1) / 2 // 1 + 2 + ... + k
		if got != itoa(want) {
			t.Errorf("writes at %d s after creation: %v, want %d", k, got, want)
		}
	}
	at := t0.Add(100 * time.Second).Format(time.RFC3339)
	for _, q := range []string{
		`histogram_count(sonde_syscall_latency_nanoseconds)`,
		`histogram_quantile(0.9, rate(sonde_syscall_latency_nanoseconds[1m]))`,
		`histogram_quantile(0.9, rate(sonde_syscall_latency_nanoseconds_bucket[1m]))`,
	} {
		r := get(t, srv, "/api/v1/query", url.Values{"query": {q}, "time": {at}})
		t.Logf("%s: %v", q, r["data"])
	}
	value := func(q string) float64 {
		r := get(t, srv, "/api/v1/query", url.Values{"query": {q}, "time": {at}})
		v, err := strconv.ParseFloat(r["data"].(map[string]any)["result"].([]any)[0].(map[string]any)["value"].([]any)[1].(string), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := value(`histogram_count(sonde_syscall_latency_nanoseconds)`); v != 700 {
		t.Errorf("histogram_count at 100 s: %v, want 700", v)
	}
	// 5 of 7 events in [513, 577): the median is in (512, 1024] (the
	// engine of Prometheus 3.15.1, with a sum NaN as the kernel keeps
	// none, interpolated in the last bucket: 2^23.5)
	if v := value(`histogram_quantile(0.5, rate(sonde_syscall_latency_nanoseconds[1m]))`); v <= 512 || v > 1024 {
		t.Errorf("native median %v, want it in (512, 1024]", v)
	}
	if v := value(`histogram_quantile(0.5, rate(sonde_syscall_latency_nanoseconds_bucket[1m]))`); v <= 512 || v > 576 {
		t.Errorf("classic median %v, want it in (512, 576]", v)
	}
}

// Where seconds (and minutes) are pruned, the coarser tiers stand in:
// a sample at the end of each minute or hour they hold, exact, and none
// for the instants only they cover. The counters rose nowhere in the
// pruned time (the seconds, empty, were read as seconds without events):
// rate() said 0 over the last 7 days.
func TestPrunedTiers(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	src := newSource(t0, 3*3600)
	src.pruned = map[analytics.Granularity]time.Time{analytics.PerSecond: t0.Add(2 * time.Hour), analytics.PerMinute: t0.Add(time.Hour)}
	a, err := New(src, Config{Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	at := func(k int) []any {
		r := get(t, srv, "/api/v1/query", url.Values{"query": {`sonde_syscall_ops_total{name="write"}`}, "time": {t0.Add(time.Duration(k) * time.Second).Format(time.RFC3339)}})
		return r["data"].(map[string]any)["result"].([]any)
	}
	for _, k := range []int{3600, 3600 + 90*60 - 30, 7200 + 100, 3*3600 - 1} {
		// the last sample at or before k: an hour's end, a minute's end,
		// or a second's
		s := k
		switch {
		case k <= 3600:
			s = k / 3600 * 3600
		case k <= 7200:
			s = k / 60 * 60
		}
		res := at(k)
		if len(res) != 1 {
			t.Fatalf("at %d s: %v", k, res)
		}
		if got, want := res[0].(map[string]any)["value"].([]any)[1], itoa(s*(s+1)/2); got != want {
			t.Errorf("writes at %d s: %v, want %s (the sum to %d s)", k, got, want, s)
		}
	}
	if res := at(1800); len(res) != 0 {
		t.Errorf("at 1800 s, within an hour only the hour tier holds: %v, want no sample", res)
	}
	r := get(t, srv, "/api/v1/query", url.Values{"query": {`increase(sonde_syscall_ops_total{name="read"}[2h])`}, "time": {t0.Add(7230 * time.Second).Format(time.RFC3339)}})
	res := r["data"].(map[string]any)["result"].([]any)
	if len(res) != 1 {
		t.Fatalf("increase: %v", r)
	}
	if v, _ := strconv.ParseFloat(res[0].(map[string]any)["value"].([]any)[1].(string), 64); v < 2*3600 {
		t.Errorf("increase of reads over the pruned 2 h: %v, want about %d", v, 2*7200)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// BenchmarkQueryRange: 1 h of 50 series (bench/prom measures it on a
// real store).
func BenchmarkQueryRange(b *testing.B) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	s := &source{created: t0, sampled: t0.Add(time.Hour), secs: map[string][]analytics.Second{}}
	for i := 0; i < 3600; i++ {
		sec := analytics.Second{Time: t0.Add(time.Duration(i) * time.Second), Samples: 1}
		for k := 0; k < 50; k++ {
			sec.Rows = append(sec.Rows, analytics.Row{Key: []string{"call" + strconv.Itoa(k)}, Value: int64(k + i%7)})
		}
		s.secs["syscall.ops[name]"] = append(s.secs["syscall.ops[name]"], sec)
	}
	a, err := New(s, Config{Host: "h"})
	if err != nil {
		b.Fatal(err)
	}
	h := a.Handler()
	v := url.Values{"query": {`rate(sonde_syscall_ops_total[1m])`}, "start": {strconv.FormatInt(t0.Unix(), 10)},
		"end": {strconv.FormatInt(t0.Add(time.Hour).Unix(), 10)}, "step": {"15"}}
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/query_range?"+v.Encode(), nil))
		if rec.Code != 200 {
			b.Fatal(rec.Body.String())
		}
	}
}
