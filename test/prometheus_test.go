package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// prometheus is a real Prometheus (Debian's package) started by a test.
type prometheus struct {
	t    *testing.T
	base string // http://127.0.0.1:PORT
	log  *bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
}

// freePort is a TCP port free on loopback now (Prometheus needs one
// given: it does not say which port :0 gave it).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// startPrometheus starts prometheus scraping each target (host:port,
// /metrics) every second, with native histograms enabled (it then asks
// for protobuf, and keeps a histogram's native buckets, not its classic
// ones) or not (text, classic buckets), its data in a temporary
// directory, and waits until it is ready.
func startPrometheus(t *testing.T, native bool, targets ...string) *prometheus {
	t.Helper()
	return runPrometheus(t, promConfig{native: native, targets: targets})
}

// promConfig is how runPrometheus starts a Prometheus: dir and addr are
// a temporary directory and a free port unless given (a restart gives
// the first run's).
type promConfig struct {
	native    bool
	targets   []string
	dir, addr string
	extra     []string // more flags
}

func runPrometheus(t *testing.T, c promConfig) *prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("prometheus is needed (Debian's package, installed by .ci/run): %v", err)
	}
	dir := c.dir
	if dir == "" {
		dir = t.TempDir()
	}
	var cfg strings.Builder
	cfg.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n")
	for i, tg := range c.targets {
		fmt.Fprintf(&cfg, "  - job_name: job%d\n    static_configs:\n      - targets: [%q]\n", i, tg)
	}
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := c.addr
	if addr == "" {
		addr = "127.0.0.1:" + freePort(t)
	}
	args := []string{"--config.file=" + conf, "--storage.tsdb.path=" + filepath.Join(dir, "data"), "--web.listen-address=" + addr}
	if c.native {
		args = append(args, "--enable-feature=native-histograms")
	}
	cmd := exec.Command(bin, append(args, c.extra...)...)
	p := &prometheus{t: t, base: "http://" + addr, log: &bytes.Buffer{}, cmd: cmd, done: make(chan struct{})}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.log.WriteString(sc.Text() + "\n")
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	p.poll("ready", func() bool {
		resp, err := http.Get(p.base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return p
}

// stop stops Prometheus as its service would (SIGTERM: it closes its
// TSDB) and waits for it to exit.
func (p *prometheus) stop() {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		p.t.Fatalf("prometheus did not stop on SIGTERM; its log:\n%s", p.log)
	}
}

// poll calls ok until it is true; a hang guard of 90 s fails the test.
func (p *prometheus) poll(what string, ok func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			p.t.Fatalf("prometheus: waited 90 s for %s; its log:\n%s", what, p.log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// sample is one sample of a series.
type sample struct {
	T time.Time
	V float64
}

// series is one series of a query's answer.
type series struct {
	Metric map[string]string
	Values []sample
}

// query evaluates q at time at (now if zero) and returns its series
// (an instant vector's samples as one-sample series).
func (p *prometheus) query(q string, at time.Time) []series {
	p.t.Helper()
	v := url.Values{"query": {q}}
	if !at.IsZero() {
		v.Set("time", strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64))
	}
	return p.get("/api/v1/query?"+v.Encode(), q)
}

// get answers a query's request.
func (p *prometheus) get(path, q string) []series {
	p.t.Helper()
	resp, err := http.Get(p.base + path)
	if err != nil {
		p.t.Fatalf("query %s: %v", q, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string
		Error  string
		Data   struct {
			ResultType string
			Result     []struct {
				Metric map[string]string
				Value  []any
				Values [][]any
			}
		}
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		p.t.Fatalf("query %s: %v %s", q, err, body)
	}
	var out []series
	for _, res := range r.Data.Result {
		s := series{Metric: res.Metric}
		vals := res.Values
		if res.Value != nil {
			vals = [][]any{res.Value}
		}
		for _, pair := range vals {
			sec := pair[0].(float64)
			f, err := strconv.ParseFloat(pair[1].(string), 64)
			if err != nil {
				p.t.Fatalf("query %s: %v", q, err)
			}
			s.Values = append(s.Values, sample{time.UnixMilli(int64(math.Round(sec * 1000))), f})
		}
		out = append(out, s)
	}
	return out
}

// queryRange evaluates q over [start, end] every step.
func (p *prometheus) queryRange(q string, start, end time.Time, step time.Duration) []series {
	p.t.Helper()
	f := func(t time.Time) string { return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64) }
	v := url.Values{"query": {q}, "start": {f(start)}, "end": {f(end)}, "step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}}
	return p.get("/api/v1/query_range?"+v.Encode(), q)
}

// readSeconds reads a dataset's seconds [from, to) from sonded.
func (s *sonded) readSeconds(name string, from, to time.Time) []analytics.Second {
	s.t.Helper()
	n := int(to.Sub(from) / time.Second)
	if n <= 0 {
		return nil
	}
	var d struct {
		Data []struct {
			Sample int64
			Data   struct {
				Data []struct {
					Key     string
					Value   int64
					Buckets []analytics.Bucket
				}
				Buckets []analytics.Bucket
				Value   int64
			}
		}
	}
	q := fmt.Sprintf("%s/data?start=%s&seconds=%d", datasetPath(name), url.QueryEscape(from.UTC().Format(time.RFC3339)), n)
	if n == 1 {
		n = 2 // a single interval is answered as an object: read two, keep one
		q = fmt.Sprintf("%s/data?start=%s&seconds=%d", datasetPath(name), url.QueryEscape(from.UTC().Format(time.RFC3339)), n)
		to = from.Add(time.Second)
	}
	if st, body := s.call("GET", q, nil, &d); st != 200 {
		s.t.Fatalf("data: %d %s", st, body)
	}
	var out []analytics.Second
	for _, iv := range d.Data {
		at := time.Unix(iv.Sample, 0)
		if at.Before(from) || !at.Before(to) {
			continue
		}
		sec := analytics.Second{Time: at}
		for _, r := range iv.Data.Data {
			sec.Rows = append(sec.Rows, analytics.Row{Key: []string{r.Key}, Value: r.Value, Buckets: r.Buckets})
		}
		if len(iv.Data.Data) == 0 && (iv.Data.Value != 0 || len(iv.Data.Buckets) > 0) {
			sec.Rows = append(sec.Rows, analytics.Row{Value: iv.Data.Value, Buckets: iv.Data.Buckets})
		}
		out = append(out, sec)
	}
	return out
}

// keySum sums key's values (every row's with key "") over secs.
func keySum(secs []analytics.Second, key string) int64 {
	var n int64
	for _, s := range secs {
		for _, r := range s.Rows {
			if key == "" || len(r.Key) > 0 && r.Key[0] == key {
				n += r.Value
			}
		}
	}
	return n
}

// createExported creates a dataset marked for export.
func (s *sonded) createExported(spec string) {
	s.t.Helper()
	var resp struct {
		Dataset struct {
			Export bool `json:"export"`
		} `json:"dataset"`
	}
	if st, body := s.call("POST", "/datasets", map[string]any{"statistic": spec, "export": true}, &resp); st != 201 || !resp.Dataset.Export {
		s.t.Fatalf("create %s: %d %s", spec, st, body)
	}
}

// Real Prometheus servers scrape sonded's /metrics, one with native
// histograms (protobuf), one without (text): every sample of a dd's
// write count equals the sum of sonded's own seconds from the exporter's
// origin to the sample's timestamp, the last one is the dd's 2,000,000
// writes exactly (several seconds of them), and histogram_quantile over
// the exported latency, classic and native, falls in the bucket that
// sonded's own data gives for the same seconds (the native bucket that
// holds it: the exported dataset is quantized to fit them).
func TestPrometheusScrapesSonded(t *testing.T) {
	s := startSonded(t, t.TempDir(), "--budget", "-1")
	name, dd := uniqueDD(t, "pdd")
	ops := "syscall.ops[execname=" + name + "][name]"
	lat := "syscall.latency[execname=" + name + "]"
	s.createExported(ops)
	s.createExported(lat)
	p := startPrometheus(t, true, s.addr)
	pc := startPrometheus(t, false, s.addr)

	// The exporter's origin is its first scrape (by either), the first
	// timestamp of the folded-rows counter. The dd runs after it.
	origin := map[string]time.Time{}
	for _, ds := range []string{ops, lat} {
		q := fmt.Sprintf(`sonde_export_folded_rows_total{dataset=%q}[10m]`, ds)
		for _, pr := range []*prometheus{p, pc} {
			pr.poll("the first scrape of "+ds, func() bool { return len(pr.query(q, time.Time{})) == 1 })
			if t0 := pr.query(q, time.Time{})[0].Values[0].T; origin[ds].IsZero() || t0.Before(origin[ds]) {
				origin[ds] = t0
			}
		}
	}
	from, n := runDD(t, dd, 2000000)
	end := from.Add(time.Duration(n) * time.Second)

	at := lastAfter(p, ops, end)
	writes := p.query(fmt.Sprintf(`sonde_syscall_ops_total{dataset=%q,name="write",execname=%q}[10m]`, ops, name), at)
	if len(writes) != 1 {
		t.Fatalf("one series of writes expected, got %v", writes)
	}
	t.Logf("%d samples of writes: %v", len(writes[0].Values), writes[0].Values)
	for _, smp := range writes[0].Values {
		want := keySum(s.readSeconds(ops, origin[ops], smp.T), "write")
		if smp.V != float64(want) {
			t.Errorf("at %s Prometheus has %v writes, sonded's seconds from %s sum to %d", smp.T, smp.V, origin[ops], want)
		}
	}
	if last := writes[0].Values[len(writes[0].Values)-1]; last.V != 2000000 {
		t.Errorf("last sample %v at %s: want the dd's 2000000 writes", last.V, last.T)
	}

	// histogram_quantile against sonded's own percentile bucket, over
	// the classic buckets and over the native ones.
	for _, pr := range []*prometheus{pc, p} {
		native := pr == p
		at := lastAfter(pr, lat, end)
		var buckets []analytics.Bucket
		for _, sec := range s.readSeconds(lat, origin[lat], at) {
			for _, r := range sec.Rows {
				buckets = append(buckets, r.Buckets...)
			}
		}
		series := fmt.Sprintf(`sonde_syscall_latency_nanoseconds_bucket{dataset=%q}`, lat)
		if native {
			series = fmt.Sprintf(`sonde_syscall_latency_nanoseconds{dataset=%q}`, lat)
		}
		for _, q := range []float64{0.5, 0.9, 0.99} {
			b, ok := analytics.Percentile(buckets, q)
			if !ok {
				t.Fatalf("sonded has no latency for the dd")
			}
			r := pr.query(fmt.Sprintf(`histogram_quantile(%v, %s)`, q, series), at)
			if len(r) != 1 {
				t.Fatalf("histogram_quantile(%v, %s): %v", q, series, r)
			}
			got := r[0].Values[0].V
			lo, hi := float64(b.Min-1), float64(b.Max-1) // [a, b) is (a-1, b-1]
			if native {
				// the native bucket (2^(k-1), 2^k] that holds got
				k := math.Ceil(math.Log2(got))
				lo, hi = math.Exp2(k-1), math.Exp2(k)
				if float64(b.Min-1) < lo || float64(b.Max-1) > hi {
					t.Errorf("histogram_quantile(%v) = %v in the native bucket (%v, %v], which does not hold sonded's [%d, %d)", q, got, lo, hi, b.Min, b.Max)
				}
			}
			t.Logf("native %v q%v: Prometheus %v, sonded [%d, %d)", native, q, got, b.Min, b.Max)
			if got <= lo || (b.Max != 0 && got > hi) {
				t.Errorf("native %v: histogram_quantile(%v) = %v, outside (%v, %v] (sonded's bucket [%d, %d))", native, q, got, lo, hi, b.Min, b.Max)
			}
		}
	}
}

// lastAfter waits until pr holds a sample of the dataset stamped at or
// after end, and returns its timestamp (an instant query's answer carries
// the query's time: a range selector gives the samples' own).
func lastAfter(pr *prometheus, ds string, end time.Time) time.Time {
	q := fmt.Sprintf(`sonde_export_folded_rows_total{dataset=%q}[10m]`, ds)
	var at time.Time
	pr.poll("a sample after the dd", func() bool {
		r := pr.query(q, time.Time{})
		if len(r) != 1 {
			return false
		}
		at = r[0].Values[len(r[0].Values)-1].T
		return !at.Before(end)
	})
	return at
}

// sonde --prometheus, scraped by a real Prometheus while it runs: a
// dd's 12,345 writes are found in Prometheus exactly, as counters keyed
// by the aggregation's keys, and sonde's own output at exit agrees.
func TestPrometheusScrapesSonde(t *testing.T) {
	name, dd := uniqueDD(t, "qdd")
	cmd := exec.Command(sonde, "--prometheus", "127.0.0.1:0", "-qn",
		`syscall::write:entry /execname == "`+name+`"/ { @w[probefunc] = count(); @ = count(); }`)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	addr := make(chan string, 1)
	var log bytes.Buffer
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if a, ok := strings.CutPrefix(sc.Text(), "sonde: serving the aggregations on http://"); ok {
				addr <- strings.TrimSuffix(a, "/metrics")
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	var target string
	select {
	case target = <-addr:
	case <-done:
		t.Fatalf("sonde exited:\n%s", log.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("sonde did not serve:\n%s", log.String())
	}
	p := startPrometheus(t, true, target)
	p.poll("a first scrape of sonde", func() bool { return len(p.query(`sonde_folded_keys{aggregation="w"}`, time.Time{})) == 1 })
	runDD(t, dd, 12345)
	ended := time.Now()
	var last sample
	p.poll("a scrape after the dd", func() bool {
		r := p.query(`sonde_w_total{key0="write"}[1m]`, time.Time{})
		if len(r) != 1 {
			return false
		}
		last = r[0].Values[len(r[0].Values)-1]
		return last.T.After(ended)
	})
	if last.V != 12345 {
		t.Errorf("Prometheus has %v writes at %s, want 12345", last.V, last.T)
	}
	if r := p.query(`sonde_agg_total`, last.T); len(r) != 1 || r[0].Values[0].V != 12345 {
		t.Errorf("@'s count in Prometheus: %v, want 12345", r)
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("sonde did not exit on SIGINT:\n%s", log.String())
	}
	if !regexp.MustCompile(`(?m)^\s*write\s+12345$`).MatchString(stdout.String()) {
		t.Errorf("sonde's own output:\n%s", stdout.String())
	}
}
