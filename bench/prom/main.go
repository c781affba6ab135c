// Command prom measures sonded's Prometheus paths on data in a real store
// (internal/store, in a temporary directory). From the repository's root
// (no privilege needed; Debian's prometheus on PATH for remote-write):
//
//	go run ./bench/prom
//
// It prints:
//   - remote-write: 1,000 series (5 counter datasets of 200 keys) of 10
//     minutes caught up into a real Prometheus (started here with its
//     remote-write receiver), then 20 s of live seconds: samples per
//     second and this process's CPU per 1,000 series per second (the
//     receiver's CPU is its own, not counted);
//   - /metrics: the time of one scrape with 10,000 series (50 datasets of
//     200 keys), text and protobuf;
//   - the query API: a 1-hour query_range over 50 series (one dataset of
//     50 keys), raw every second and rate(...[1m]) every 15 s.
//
// Benchmarks are not tests: nothing here passes or fails on a number.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/promapi"
	"github.com/sonde-trace/sonde/internal/promexp"
	"github.com/sonde-trace/sonde/internal/remotewrite"
	"github.com/sonde-trace/sonde/internal/store"
)

func main() {
	skipRW := flag.Bool("no-remote-write", false, "skip the remote-write measure")
	flag.Parse()
	if err := run(*skipRW); err != nil {
		fmt.Fprintln(os.Stderr, "bench/prom:", err)
		os.Exit(1)
	}
}

var opsStat = analytics.Statistic{Name: "syscall.ops", Kind: analytics.Counter, Description: "system calls", Breakdowns: []analytics.Breakdown{{Name: "name"}}}

// source is the agent's face over a store: its datasets of opsStat
// broken down by name, sampled to end.
type source struct {
	db       *store.DB
	datasets []analytics.Dataset
	end      time.Time
}

func (s *source) Statistics() []analytics.Statistic { return []analytics.Statistic{opsStat} }
func (s *source) Datasets() []analytics.Dataset     { return s.datasets }
func (s *source) Sampled() time.Time                { return s.end }
func (s *source) Data(_ context.Context, name string, start time.Time, n int, g analytics.Granularity, _ bool) ([]analytics.Second, error) {
	w := g.Width()
	from := start.Truncate(w)
	return s.db.Read(name, from, from.Add(time.Duration(n)*w), g)
}

// fill writes datasets × keys × seconds from start (a count per key per
// second, varied) and returns the source over them.
func fill(dir string, datasets, keys, seconds int, start time.Time) (*source, error) {
	db, err := store.Open(dir, &store.Options{NoSync: true, Now: func() time.Time { return start }})
	if err != nil {
		return nil, err
	}
	src := &source{db: db, end: start.Add(time.Duration(seconds) * time.Second)}
	for d := 0; d < datasets; d++ {
		src.datasets = append(src.datasets, analytics.Dataset{Name: fmt.Sprintf("syscall.ops[name]#%d", d), Statistic: opsStat.Name,
			Breakdowns: []string{"name"}, Created: start, Export: true, State: analytics.Archived})
	}
	for i := 0; i < seconds; i++ {
		at := start.Add(time.Duration(i) * time.Second)
		var batch []store.Sample
		for d := 0; d < datasets; d++ {
			sec := analytics.Second{Time: at, Samples: 1}
			for k := 0; k < keys; k++ {
				sec.Rows = append(sec.Rows, analytics.Row{Key: []string{"call" + strconv.Itoa(k)}, Value: int64(1 + (i*7+k*13)%1000)})
			}
			batch = append(batch, store.Sample{Dataset: src.datasets[d].Name, Second: sec})
		}
		if err := db.AppendBatch(batch); err != nil {
			db.Close()
			return nil, err
		}
	}
	return src, nil
}

// appendSecond appends the next second of every dataset, key k counting
// 1+k, and makes it sampled.
func (s *source) appendSecond(keys int) error {
	var batch []store.Sample
	for _, d := range s.datasets {
		sec := analytics.Second{Time: s.end, Samples: 1}
		for k := 0; k < keys; k++ {
			sec.Rows = append(sec.Rows, analytics.Row{Key: []string{"call" + strconv.Itoa(k)}, Value: int64(1 + k)})
		}
		batch = append(batch, store.Sample{Dataset: d.Name, Second: sec})
	}
	if err := s.db.AppendBatch(batch); err != nil {
		return err
	}
	s.end = s.end.Add(time.Second)
	return nil
}

// reopen closes the store written without fsync and opens it as sonded
// does.
func (s *source) reopen(dir string) error {
	if err := s.db.Close(); err != nil {
		return err
	}
	db, err := store.Open(dir, nil)
	s.db = db
	return err
}

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []time.Duration) time.Duration {
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	return xs[len(xs)/2]
}

func run(skipRW bool) error {
	if !skipRW {
		if err := remoteWrite(); err != nil {
			return fmt.Errorf("remote-write: %w", err)
		}
	}
	if err := scrape(); err != nil {
		return fmt.Errorf("/metrics: %w", err)
	}
	return query()
}

func remoteWrite() error {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		return fmt.Errorf("prometheus (Debian's package) is needed: %w", err)
	}
	tmp, err := os.MkdirTemp("", "bench-prom-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	if err := os.WriteFile(filepath.Join(tmp, "p.yml"), []byte("global:\n  scrape_interval: 1m\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(tmp, "p.yml"), "--storage.tsdb.path="+filepath.Join(tmp, "tsdb"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver")
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if i > 300 {
			return fmt.Errorf("prometheus not ready")
		}
		time.Sleep(100 * time.Millisecond)
	}

	const datasets, keys, backlog, live = 5, 200, 600, 20
	start := time.Now().Truncate(time.Second).Add(-backlog * time.Second)
	src, err := fill(filepath.Join(tmp, "store"), datasets, keys, backlog, start)
	if err != nil {
		return err
	}
	if err := src.reopen(filepath.Join(tmp, "store")); err != nil {
		return err
	}
	defer src.db.Close()
	// the writer's state: every dataset from the start of the backlog
	rwURL := "http://" + addr + "/api/v1/write"
	state := map[string]promexp.TotalsState{}
	for _, d := range src.datasets {
		state[d.Name] = promexp.TotalsState{Next: start}
	}
	b, _ := json.Marshal(state)
	if err := src.db.PutMeta("remotewrite "+rwURL, b); err != nil {
		return err
	}
	w, err := remotewrite.New(src, src.db, remotewrite.Config{URL: rwURL, Host: "bench"})
	if err != nil {
		return err
	}
	ctx := context.Background()
	c0, t0 := cpu(), time.Now()
	for {
		more, err := w.Step(ctx)
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	c1, t1 := cpu(), time.Now()
	st := w.Stats()
	series := float64(datasets * (keys + 1)) // + each dataset's folded-rows counter
	fmt.Printf("remote-write, catching up %d s of %.0f series into Prometheus 2.42: %d samples in %d requests, %.2f s: %.0f samples/s; CPU %.2f s: %.1f ms per 1,000 series-seconds\n",
		backlog, series, st.Samples, st.Requests, t1.Sub(t0).Seconds(), float64(st.Samples)/t1.Sub(t0).Seconds(),
		(c1 - c0).Seconds(), float64((c1-c0).Milliseconds())/(float64(st.Samples)/1000))

	// live: a second of data every second
	req0 := st.Requests
	c0, t0 = cpu(), time.Now()
	for i := 0; i < live; i++ {
		if err := src.appendSecond(keys); err != nil {
			return err
		}
		if _, err := w.Step(ctx); err != nil {
			return err
		}
		time.Sleep(time.Until(t0.Add(time.Duration(i+1) * time.Second)))
	}
	c1 = cpu()
	st = w.Stats()
	fmt.Printf("remote-write, live: %d s of %.0f series, %d requests: CPU %.1f ms per second (%.1f ms per 1,000 series per second; the store's append included: %.1f%% of a CPU)\n",
		live, series, st.Requests-req0, float64((c1-c0).Microseconds())/1000/live,
		float64((c1-c0).Microseconds())/1000/live/(series/1000), 100*(c1-c0).Seconds()/float64(live))
	return nil
}

func scrape() error {
	tmp, err := os.MkdirTemp("", "bench-prom-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	const datasets, keys, seconds = 50, 200, 5
	start := time.Now().Truncate(time.Second).Add(-seconds * time.Second)
	src, err := fill(tmp, datasets, keys, seconds, start)
	if err != nil {
		return err
	}
	defer src.db.Close()
	h := promexp.Handler(promexp.New(src, nil))
	// the exporter's origin is the second after its first scrape: scrape,
	// then give it seconds after that origin, each key in each
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/metrics", nil))
	for i := 0; i < 3; i++ {
		if err := src.appendSecond(keys); err != nil {
			return err
		}
	}
	for _, f := range []struct{ name, accept string }{
		{"text", "text/plain"},
		{"protobuf", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"},
	} {
		var times []time.Duration
		var size int
		// the first scrape adds the new seconds; the others serve the totals
		for i := 0; i < 21; i++ {
			r := httptest.NewRequest("GET", "/metrics", nil)
			r.Header.Set("Accept", f.accept)
			rec := httptest.NewRecorder()
			t0 := time.Now()
			h.ServeHTTP(rec, r)
			times = append(times, time.Since(t0))
			size = rec.Body.Len()
		}
		fmt.Printf("/metrics with %d series (%d datasets of %d keys), %s: %s per scrape (median of 21), %d KB\n",
			datasets*(keys+1), datasets, keys, f.name, median(times).Round(10*time.Microsecond), size/1024)
	}
	return nil
}

func query() error {
	tmp, err := os.MkdirTemp("", "bench-prom-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	const keys, seconds = 50, 3600
	start := time.Now().Truncate(time.Second).Add(-seconds * time.Second)
	src, err := fill(tmp, 1, keys, seconds, start)
	if err != nil {
		return err
	}
	defer src.db.Close()
	api, err := promapi.New(src, promapi.Config{Host: "bench"})
	if err != nil {
		return err
	}
	h := api.Handler()
	for _, q := range []struct {
		expr string
		step time.Duration
	}{
		{`sonde_syscall_ops_total`, time.Second},
		{`rate(sonde_syscall_ops_total[1m])`, 15 * time.Second},
		{`sum(rate(sonde_syscall_ops_total[1m]))`, 15 * time.Second},
	} {
		v := url.Values{"query": {q.expr}, "start": {strconv.FormatInt(start.Unix(), 10)}, "end": {strconv.FormatInt(src.end.Unix(), 10)},
			"step": {strconv.FormatFloat(q.step.Seconds(), 'f', -1, 64)}}
		var times []time.Duration
		for i := 0; i < 11; i++ {
			r := httptest.NewRequest("GET", "/api/v1/query_range?"+v.Encode(), nil)
			rec := httptest.NewRecorder()
			t0 := time.Now()
			h.ServeHTTP(rec, r)
			times = append(times, time.Since(t0))
			if rec.Code != 200 {
				return fmt.Errorf("%s: %d %s", q.expr, rec.Code, rec.Body.String())
			}
		}
		fmt.Printf("query API, 1 h of %d series every %s: %s: %s (median of 11)\n", keys, q.step, q.expr, median(times).Round(100*time.Microsecond))
	}
	return nil
}
