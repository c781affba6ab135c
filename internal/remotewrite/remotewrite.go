// Package remotewrite sends sonded's exported datasets to a Prometheus
// remote-write receiver (Prometheus with --web.enable-remote-write-receiver,
// Thanos, Mimir, VictoriaMetrics): protocol 1.0, a prompb.WriteRequest in
// protobuf compressed with snappy, one request at a time.
//
// The series are those of /metrics (package promexp: the same families,
// labels, folding and bucket mapping) with host, instance and job labels
// added, and a sample for every second: a counter's sample stamped T is the
// sum of the dataset's seconds from the writer's origin to T, so the
// increase between two consecutive samples is exactly one second's count.
//
// The store is the queue. For each dataset the writer keeps, durably in the
// store's metadata, the totals it has sent and the first second the
// receiver has not acknowledged (the high-water mark). Each round reads the
// seconds from there on from the agent (its store), adds them to a copy of
// the totals, and sends them in time order; only an acknowledged request
// moves the mark and replaces the totals. When the receiver is down, the
// request is tried again with backoff and nothing else piles up: the
// request in flight (at most MaxSamples samples) is the whole queue, and
// the seconds since wait in the store. When it is back, the writer sends
// them oldest first, MaxSamples at a time, until it has caught up; a
// sonded restarted meanwhile goes on from the mark.
//
// The limits, which are the receiver's: Prometheus refuses, per series, a
// sample older than the series' last (out of order) and any sample older
// than about an hour before the newest sample of its head (out of bounds),
// and it refuses a whole request for one such sample. So the writer never
// sends a series out of order, and seconds older than MaxCatchUp (55 minutes
// by default) are added to the totals without being sent: after a longer
// outage the graph has a gap up to that point, and counters are still
// exact after it. A request the receiver refuses as bad (a 4xx other than
// 429) is not tried again: its samples are counted as rejected and the
// writer goes on after them. Remote-write 2.0 is not spoken: Prometheus
// 2.42 (Debian 12's) has no 2.0 receiver.
package remotewrite

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/prompb"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/promexp"
)

// Meta keeps small documents durably: the store.
type Meta interface {
	PutMeta(key string, value []byte) error
	GetMeta(key string) ([]byte, error)
}

// Config configures a Writer; zero values take the defaults.
type Config struct {
	// URL of the receiver (Prometheus: http://HOST:9090/api/v1/write).
	URL string
	// Host is the value of the host and instance labels (default: the
	// host's name); Job that of the job label (default "sonded").
	Host, Job string
	// BearerToken, or Username and Password (basic auth), if the
	// receiver asks for credentials.
	BearerToken        string
	Username, Password string
	// TLS for an https URL (nil: the system's roots).
	TLS *tls.Config
	// Timeout of one request (default 30 s).
	Timeout time.Duration
	// MinBackoff and MaxBackoff bound the wait before a failed request
	// is tried again: it doubles from MinBackoff (default 500 ms) up to
	// MaxBackoff (default 30 s).
	MinBackoff, MaxBackoff time.Duration
	// MaxSamples bounds the samples of one request (default 20,000): a
	// request holds at least one second of one dataset.
	MaxSamples int
	// MaxCatchUp is how old a second may be and still be sent (default
	// 55 minutes; Prometheus refuses samples an hour older than its head).
	MaxCatchUp time.Duration
	// MaxSeries per dataset, as promexp's (default 200).
	MaxSeries int
	// Interval between rounds when caught up (default 1 s).
	Interval time.Duration
	Logf     func(format string, args ...any)
	// Now is the clock (tests).
	Now func() time.Time
}

// Stats count what the writer did.
type Stats struct {
	Requests int64 // requests acknowledged
	Failures int64 // attempts that failed (sent again later)
	Samples  int64 // samples and histograms acknowledged
	Rejected int64 // samples of requests the receiver refused as bad
	Skipped  int64 // seconds older than MaxCatchUp, not sent
	// Next is the oldest high-water mark: every second before it is
	// acknowledged (or rejected, or skipped) for every dataset.
	Next time.Time
}

// Writer sends the exported datasets of a source to one receiver.
type Writer struct {
	src    promexp.Source
	meta   Meta
	cfg    Config
	client *http.Client
	key    string // of the state in meta

	mu    sync.Mutex
	sets  map[string]*promexp.Totals
	saved map[string]promexp.TotalsState // restored, not yet bound to a dataset
	stats Stats
}

// New makes a writer; its state (each dataset's totals and mark) is
// read from meta.
func New(src promexp.Source, meta Meta, cfg Config) (*Writer, error) {
	if cfg.URL == "" || !(strings.HasPrefix(cfg.URL, "http://") || strings.HasPrefix(cfg.URL, "https://")) {
		return nil, fmt.Errorf("remote-write: %q is not an http(s) URL", cfg.URL)
	}
	if cfg.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("remote-write: the host label: %w", err)
		}
		cfg.Host = h
	}
	if cfg.Job == "" {
		cfg.Job = "sonded"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(30*time.Second, cfg.MinBackoff)
	}
	if cfg.MaxSamples <= 0 {
		cfg.MaxSamples = 20000
	}
	if cfg.MaxCatchUp <= 0 {
		cfg.MaxCatchUp = 55 * time.Minute
	}
	if cfg.MaxSeries <= 1 {
		cfg.MaxSeries = promexp.DefaultMaxSeries
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg.TLS
	w := &Writer{src: src, meta: meta, cfg: cfg, client: &http.Client{Transport: tr, Timeout: cfg.Timeout},
		key: "remotewrite " + cfg.URL, sets: map[string]*promexp.Totals{}}
	b, err := meta.GetMeta(w.key)
	if err != nil {
		return nil, fmt.Errorf("remote-write: reading its state: %w", err)
	}
	if b != nil {
		if err := json.Unmarshal(b, &w.saved); err != nil {
			return nil, fmt.Errorf("remote-write: its state: %w", err)
		}
	}
	return w, nil
}

// Stats are the writer's counts so far.
func (w *Writer) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Run sends until ctx ends.
func (w *Writer) Run(ctx context.Context) error {
	backoff := time.Duration(0)
	failing := 0
	for {
		more, err := w.Step(ctx)
		wait := w.cfg.Interval
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			failing++
			backoff = min(max(2*backoff, w.cfg.MinBackoff), w.cfg.MaxBackoff)
			wait = backoff
			if failing == 1 || failing%10 == 0 {
				w.cfg.Logf("remote-write to %s: %v (attempt %d; next in %s)", w.cfg.URL, err, failing, wait)
			}
		default:
			if failing > 0 {
				w.cfg.Logf("remote-write to %s: delivered again after %d failed attempts; catching up from %s", w.cfg.URL, failing, w.Stats().Next.Format(time.RFC3339))
			}
			failing, backoff = 0, 0
			if more {
				wait = 0
			}
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
	}
}

// batch is one request being built.
type batch struct {
	series  map[string]*prompb.TimeSeries
	order   []string
	samples int
	sets    map[string]*promexp.Totals // the totals after the request
	skipped int64
}

// Step sends one request of the seconds not yet acknowledged, if there
// are any, and says whether more are waiting.
func (w *Writer) Step(ctx context.Context) (bool, error) {
	end := w.src.Sampled().Truncate(time.Second)
	if end.IsZero() {
		return false, nil
	}
	b := &batch{series: map[string]*prompb.TimeSeries{}, sets: map[string]*promexp.Totals{}}
	more, err := w.build(ctx, b, end)
	if err != nil {
		return false, err
	}
	if b.samples > 0 {
		rejected, err := w.send(ctx, b)
		if err != nil {
			w.mu.Lock()
			w.stats.Failures++
			w.mu.Unlock()
			return false, err
		}
		w.mu.Lock()
		if rejected {
			w.stats.Rejected += int64(b.samples)
		} else {
			w.stats.Requests++
			w.stats.Samples += int64(b.samples)
		}
		w.mu.Unlock()
	}
	return more, w.commit(b)
}

// build fills b with the seconds from each exported dataset's mark, in
// time order, until MaxSamples; it says whether seconds are left over.
func (w *Writer) build(ctx context.Context, b *batch, end time.Time) (bool, error) {
	stats := map[string]analytics.Statistic{}
	for _, s := range w.src.Statistics() {
		stats[s.Name] = s
	}
	var ds []analytics.Dataset
	for _, d := range w.src.Datasets() {
		if _, ok := stats[d.Statistic]; ok && d.Export {
			ds = append(ds, d)
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].Name < ds[j].Name })
	w.mu.Lock()
	cur := map[string]*promexp.Totals{}
	for _, d := range ds {
		st := stats[d.Statistic]
		t := w.sets[d.Name]
		if t != nil && t.Statistic().Kind != st.Kind {
			t = nil
		}
		if t == nil {
			if saved, ok := w.saved[d.Name]; ok {
				t = promexp.RestoreTotals(d, st, saved)
				delete(w.saved, d.Name)
			} else {
				t = promexp.NewTotals(d, st, origin(d))
			}
		}
		cur[d.Name] = t
	}
	w.sets = cur
	w.mu.Unlock()

	oldest := w.cfg.Now().Add(-w.cfg.MaxCatchUp).Truncate(time.Second)
	more := false
	for _, d := range ds {
		t := cur[d.Name].Clone()
		b.sets[d.Name] = t
		for t.Next().Before(end) {
			if b.samples >= w.cfg.MaxSamples {
				more = true
				break
			}
			if t.Next().Before(oldest) {
				// too old for the receiver: into the totals, not sent
				upTo := oldest
				if end.Before(upTo) {
					upTo = end
				}
				b.skipped += int64(upTo.Sub(t.Next()) / time.Second)
				if t.Statistic().Kind == analytics.Gauge {
					t.Add(nil, upTo, w.cfg.MaxSeries) // a level needs no history
				} else if err := t.AddRange(ctx, w.src, upTo, w.cfg.MaxSeries); err != nil {
					return false, err
				}
				continue
			}
			n := min(int(end.Sub(t.Next())/time.Second), 60)
			secs, err := w.read(ctx, d.Name, t.Next(), n)
			if err != nil {
				return false, err
			}
			byTime := map[int64]analytics.Second{}
			for _, s := range secs {
				byTime[s.Time.Unix()] = s
			}
			for i := 0; i < n && b.samples < w.cfg.MaxSamples; i++ {
				at := t.Next()
				// a second the store does not have (nothing counted,
				// or sonded was not running) is sent as one without
				// events, as the query API serves it
				t.Add([]analytics.Second{byTime[at.Unix()]}, at.Add(time.Second), w.cfg.MaxSeries)
				w.append(b, t, at.Add(time.Second))
			}
		}
	}
	return more, nil
}

// origin is where a dataset's counters start: its creation's second, as
// the query API's (package promapi), whenever the writer first sees it.
func origin(d analytics.Dataset) time.Time { return d.Created.Truncate(time.Second) }

// read reads n seconds of a dataset from start.
func (w *Writer) read(ctx context.Context, name string, start time.Time, n int) ([]analytics.Second, error) {
	if n <= 0 {
		return nil, nil
	}
	secs, err := w.src.Data(ctx, name, start, n, analytics.PerSecond, false)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return secs, nil
}

// append adds t's series at ts to b.
func (w *Writer) append(b *batch, t *promexp.Totals, ts time.Time) {
	ms := ts.UnixMilli()
	t.Metrics(func(m promexp.Metric) {
		switch {
		case m.Kind == analytics.Distribution:
			for _, c := range m.Classic {
				w.sample(b, m.Name+"_bucket", m.Labels, promexp.FormatLE(c.LE), ms, float64(c.Count))
			}
			w.sample(b, m.Name+"_bucket", m.Labels, "+Inf", ms, float64(m.Count))
			w.sample(b, m.Name+"_count", m.Labels, "", ms, float64(m.Count))
			w.sample(b, m.Name+"_sum", m.Labels, "", ms, math.NaN())
			if m.Native != nil {
				ts := w.series(b, m.Name, m.Labels, "")
				h := prompb.Histogram{
					Count: &prompb.Histogram_CountInt{CountInt: m.Count}, Sum: math.NaN(), Schema: 0,
					ZeroThreshold: m.Native.ZeroThreshold, ZeroCount: &prompb.Histogram_ZeroCountInt{ZeroCountInt: m.Native.ZeroCount},
					PositiveDeltas: m.Native.Deltas, Timestamp: ms,
				}
				for _, s := range m.Native.Spans {
					h.PositiveSpans = append(h.PositiveSpans, prompb.BucketSpan{Offset: s.Offset, Length: s.Length})
				}
				ts.Histograms = append(ts.Histograms, h)
				b.samples++
			}
		default:
			w.sample(b, m.Name, m.Labels, "", ms, m.Value)
		}
	})
}

func (w *Writer) sample(b *batch, name string, labels []promexp.Label, le string, ms int64, v float64) {
	ts := w.series(b, name, labels, le)
	ts.Samples = append(ts.Samples, prompb.Sample{Value: v, Timestamp: ms})
	b.samples++
}

// series finds or makes a series of b: its labels sorted by name, as
// the protocol wants them.
func (w *Writer) series(b *batch, name string, labels []promexp.Label, le string) *prompb.TimeSeries {
	ls := make([]prompb.Label, 0, len(labels)+5)
	ls = append(ls, prompb.Label{Name: "__name__", Value: name}, prompb.Label{Name: "host", Value: w.cfg.Host},
		prompb.Label{Name: "instance", Value: w.cfg.Host}, prompb.Label{Name: "job", Value: w.cfg.Job})
	for _, l := range labels {
		ls = append(ls, prompb.Label{Name: l.Name, Value: l.Value})
	}
	if le != "" {
		ls = append(ls, prompb.Label{Name: "le", Value: le})
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name < ls[j].Name })
	var id strings.Builder
	for _, l := range ls {
		id.WriteString(l.Name)
		id.WriteByte(0)
		id.WriteString(l.Value)
		id.WriteByte(0)
	}
	if ts := b.series[id.String()]; ts != nil {
		return ts
	}
	ts := &prompb.TimeSeries{Labels: ls}
	b.series[id.String()] = ts
	b.order = append(b.order, id.String())
	return ts
}

// errRetry marks a failure worth trying again.
var errRetry = errors.New("will retry")

// send sends b; it says whether the receiver refused it as bad (not to
// be sent again), or fails when it should be sent again.
func (w *Writer) send(ctx context.Context, b *batch) (bool, error) {
	req := prompb.WriteRequest{Timeseries: make([]prompb.TimeSeries, 0, len(b.order))}
	for _, id := range b.order {
		req.Timeseries = append(req.Timeseries, *b.series[id])
	}
	raw, err := req.Marshal()
	if err != nil {
		return false, fmt.Errorf("encoding: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, w.cfg.URL, bytes.NewReader(snappy.Encode(nil, raw)))
	if err != nil {
		return false, fmt.Errorf("request: %w", err)
	}
	hr.Header.Set("Content-Encoding", "snappy")
	hr.Header.Set("Content-Type", "application/x-protobuf")
	hr.Header.Set("User-Agent", "sonded")
	hr.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	switch {
	case w.cfg.BearerToken != "":
		hr.Header.Set("Authorization", "Bearer "+w.cfg.BearerToken)
	case w.cfg.Username != "":
		hr.SetBasicAuth(w.cfg.Username, w.cfg.Password)
	}
	resp, err := w.client.Do(hr)
	if err != nil {
		return false, fmt.Errorf("%w: %w", errRetry, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode/100 == 2:
		return false, nil
	case resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusTooManyRequests:
		w.cfg.Logf("remote-write to %s: %d samples refused: %s: %s", w.cfg.URL, b.samples, resp.Status, strings.TrimSpace(string(body)))
		return true, nil
	}
	return false, fmt.Errorf("%w: %s: %s", errRetry, resp.Status, strings.TrimSpace(string(body)))
}

// commit makes b's totals the writer's and keeps them in meta.
func (w *Writer) commit(b *batch) error {
	w.mu.Lock()
	state := map[string]promexp.TotalsState{}
	for name, t := range b.sets {
		if _, ok := w.sets[name]; ok {
			w.sets[name] = t
		}
	}
	var oldest time.Time
	for name, t := range w.sets {
		state[name] = t.State()
		if oldest.IsZero() || t.Next().Before(oldest) {
			oldest = t.Next()
		}
	}
	w.stats.Next = oldest
	w.stats.Skipped += b.skipped
	w.mu.Unlock()
	raw, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("remote-write state: %w", err)
	}
	if err := w.meta.PutMeta(w.key, raw); err != nil {
		return fmt.Errorf("remote-write state: %w", err)
	}
	return nil
}

var (
	descRequests = prometheus.NewDesc("sonde_remote_write_requests_total", "Remote-write requests the receiver acknowledged.", []string{"url"}, nil)
	descFailures = prometheus.NewDesc("sonde_remote_write_failures_total", "Remote-write attempts that failed and are sent again (connection, 5xx, 429).", []string{"url"}, nil)
	descSamples  = prometheus.NewDesc("sonde_remote_write_samples_total", "Samples and native histograms sent, by what became of them: acknowledged, or rejected (a 4xx: not sent again).", []string{"url", "result"}, nil)
	descSkipped  = prometheus.NewDesc("sonde_remote_write_skipped_seconds_total", "Dataset-seconds older than the catch-up limit, counted in the totals but not sent.", []string{"url"}, nil)
	descBehind   = prometheus.NewDesc("sonde_remote_write_behind_seconds", "How far the oldest dataset's acknowledged seconds are behind the last second sampled.", []string{"url"}, nil)
)

// Describe sends the writer's own metrics' descriptions.
func (w *Writer) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descFailures, descSamples, descSkipped, descBehind} {
		ch <- d
	}
}

// Collect sends the writer's counts as metrics (on sonded's /metrics).
func (w *Writer) Collect(ch chan<- prometheus.Metric) {
	st := w.Stats()
	u := w.cfg.URL
	ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(st.Requests), u)
	ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(st.Failures), u)
	ch <- prometheus.MustNewConstMetric(descSamples, prometheus.CounterValue, float64(st.Samples), u, "acknowledged")
	ch <- prometheus.MustNewConstMetric(descSamples, prometheus.CounterValue, float64(st.Rejected), u, "rejected")
	ch <- prometheus.MustNewConstMetric(descSkipped, prometheus.CounterValue, float64(st.Skipped), u)
	behind := 0.0
	if !st.Next.IsZero() {
		behind = max(0, w.src.Sampled().Truncate(time.Second).Sub(st.Next).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(descBehind, prometheus.GaugeValue, behind, u)
}
