package test

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// sonded remote-writes to a real Prometheus (its remote-write receiver
// and native histograms enabled): every second of a dd's writes is a
// sample, and the increase between two consecutive samples is exactly
// sonded's count of that second; Prometheus is stopped for 30 s while
// another dd runs and sonded is restarted, and started again: the seconds
// it missed are sent from sonded's store, and the range has no missing
// second. The latency
// dataset arrives as a native histogram (and classic buckets) whose count
// is sonded's.
func TestPrometheusRemoteWrite(t *testing.T) {
	pc := promConfig{native: true, dir: t.TempDir(), addr: "127.0.0.1:" + freePort(t), extra: []string{"--web.enable-remote-write-receiver"}}
	p := runPrometheus(t, pc)
	host := "rw" + strconv.Itoa(os.Getpid())
	sdir := t.TempDir()
	sargs := []string{"--remote-write", p.base + "/api/v1/write", "--host-label", host}
	s := startSonded(t, sdir, sargs...)
	name, dd := uniqueDD(t, "rdd")
	ops := "syscall.ops[execname=" + name + "][name]"
	lat := "syscall.latency[execname=" + name + "]"
	s.createExported(ops)
	s.createExported(lat)
	marker := fmt.Sprintf(`sonde_export_folded_rows_total{dataset=%q,host=%q,instance=%q,job="sonded"}[10m]`, ops, host, host)
	p.poll("a first remote-written sample", func() bool { return len(p.query(marker, time.Time{})) == 1 })

	from, _ := runDD(t, dd, 20000)
	p.poll("the first dd's seconds", func() bool {
		r := p.query(fmt.Sprintf(`sonde_syscall_ops_total{dataset=%q,name="write",host=%q}`, ops, host), time.Time{})
		return len(r) == 1 && r[0].Values[0].V == 20000
	})
	p.stop()
	stopped := time.Now()
	t.Logf("Prometheus stopped at %s", stopped.Format(time.RFC3339Nano))
	runDD(t, dd, 30000)
	// sonded restarted too while the receiver is down: what it has not
	// delivered is in its store, the marks in its state
	time.Sleep(2 * time.Second)
	s.stop(syscall.SIGTERM)
	s = startSonded(t, sdir, sargs...)
	time.Sleep(time.Until(stopped.Add(30 * time.Second)))
	p = runPrometheus(t, pc)
	restarted := time.Now()
	t.Logf("Prometheus restarted at %s", restarted.Format(time.RFC3339Nano))
	last, n := runDD(t, dd, 10000)
	end := last.Add(time.Duration(n) * time.Second)

	writes := fmt.Sprintf(`sonde_syscall_ops_total{dataset=%q,name="write",host=%q}[10m]`, ops, host)
	var got []sample
	p.poll("the seconds after the last dd", func() bool {
		r := p.query(writes, time.Time{})
		if len(r) != 1 {
			return false
		}
		got = r[0].Values
		return !got[len(got)-1].T.Before(end)
	})
	first, final := got[0], got[len(got)-1]
	t.Logf("%d samples of writes from %s to %s", len(got), first.T.Format(time.RFC3339), final.T.Format(time.RFC3339))
	if first.T.After(from.Add(time.Second)) {
		t.Errorf("the first sample of writes is at %s, after the first dd's first second %s", first.T, from)
	}
	if !first.T.Before(stopped) || !final.T.After(restarted) {
		t.Fatalf("the samples do not span the outage: %s to %s", first.T, final.T)
	}
	// sonded's own count of each second [T-1s, T) of a sample at T
	secs := map[int64]int64{}
	for _, sec := range s.readSeconds(ops, first.T.Add(-time.Second), final.T) {
		secs[sec.Time.Unix()] = keySum([]analytics.Second{sec}, "write")
	}
	var total int64
	for sec := first.T.Add(-time.Second); sec.Before(final.T); sec = sec.Add(time.Second) {
		total += secs[sec.Unix()]
	}
	if total != 60000 {
		t.Errorf("sonded counts %d writes over the samples' seconds, want the dds' 60000", total)
	}
	if first.V != float64(secs[first.T.Add(-time.Second).Unix()]) {
		t.Errorf("first sample %v at %s; sonded's second before it: %d", first.V, first.T, secs[first.T.Add(-time.Second).Unix()])
	}
	missing := 0
	for i := 1; i < len(got); i++ {
		if d := got[i].T.Sub(got[i-1].T); d != time.Second {
			missing++
			t.Errorf("samples at %s and %s: %s apart, want every second", got[i-1].T.Format(time.RFC3339), got[i].T.Format(time.RFC3339), d)
		}
		want := secs[got[i-1].T.Unix()]
		if d := got[i].V - got[i-1].V; d != float64(want) {
			t.Errorf("second %s: Prometheus' increase %v, sonded's count %d", got[i-1].T.Format(time.RFC3339), d, want)
		}
	}
	if final.V != 60000 {
		t.Errorf("last sample %v at %s, want the dds' 60000 writes", final.V, final.T)
	}
	t.Logf("no second missing from %s to %s (%d missing), across the outage from %s to %s", first.T.Format(time.RFC3339), final.T.Format(time.RFC3339), missing, stopped.Format(time.RFC3339), restarted.Format(time.RFC3339))

	// The writer's own counts on sonded's /metrics: attempts failed
	// while Prometheus was down, nothing rejected.
	resp, err := http.Get("http://" + s.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`sonde_remote_write_failures_total\{url="[^"]+"\} [1-9]`, `sonde_remote_write_samples_total\{result="acknowledged",url="[^"]+"\} [1-9]`,
		`sonde_remote_write_samples_total\{result="rejected",url="[^"]+"\} 0\n`} {
		if !regexp.MustCompile(want).Match(body) {
			t.Errorf("sonded's /metrics has no %s:\n%s", want, grepLines(string(body), "sonde_remote_write"))
		}
	}
	t.Logf("the writer's counts:\n%s", grepLines(string(body), "sonde_remote_write"))

	// The latency, native and classic: the count at the last sample is
	// sonded's, from the dataset's first sample.
	native := fmt.Sprintf(`sonde_syscall_latency_nanoseconds{dataset=%q,host=%q}`, lat, host)
	r := p.query(fmt.Sprintf(`histogram_count(%s)`, native), final.T)
	if len(r) != 1 {
		t.Fatalf("histogram_count(%s): %v", native, r)
	}
	lm := p.query(fmt.Sprintf(`sonde_export_folded_rows_total{dataset=%q,host=%q}[10m]`, lat, host), final.T)
	if len(lm) != 1 {
		t.Fatalf("no samples of %s: %v", lat, lm)
	}
	origin := lm[0].Values[0].T.Add(-time.Second)
	var events int64
	var buckets []analytics.Bucket
	for _, sec := range s.readSeconds(lat, origin, final.T) {
		for _, row := range sec.Rows {
			events += row.Value
			buckets = append(buckets, row.Buckets...)
		}
	}
	if r[0].Values[0].V != float64(events) || events < 60000 {
		t.Errorf("histogram_count at %s: %v; sonded's events from %s: %d (at least the dds' 60000 writes)", final.T, r[0].Values[0].V, origin, events)
	}
	classic := p.query(fmt.Sprintf(`sonde_syscall_latency_nanoseconds_count{dataset=%q,host=%q}`, lat, host), final.T)
	if len(classic) != 1 || classic[0].Values[0].V != float64(events) {
		t.Errorf("classic _count at %s: %v, want %d", final.T, classic, events)
	}
	b, ok := analytics.Percentile(buckets, 0.99)
	if !ok {
		t.Fatalf("sonded has no latency")
	}
	q := p.query(fmt.Sprintf(`histogram_quantile(0.99, %s)`, native), final.T)
	if len(q) != 1 {
		t.Fatalf("histogram_quantile: %v", q)
	}
	v := q[0].Values[0].V
	k := math.Ceil(math.Log2(v))
	if lo, hi := math.Exp2(k-1), math.Exp2(k); float64(b.Min-1) < lo || float64(b.Max-1) > hi {
		t.Errorf("histogram_quantile(0.99) = %v in the native bucket (%v, %v], which does not hold sonded's p99 bucket [%d, %d)", v, lo, hi, b.Min, b.Max)
	}
	t.Logf("p99: Prometheus %v, sonded [%d, %d); %d events", v, b.Min, b.Max, events)

	// The same queries against sonded's query API and the Prometheus
	// fed by remote-write, side by side, at half-seconds (Prometheus 3's
	// engine in sonded leaves a range's first instant out, 2.42 keeps
	// it: off the samples' whole seconds both hold the same samples),
	// over windows that do not hold a series' first sample: there
	// rate() extrapolates towards zero, and 2.42 caps the extrapolation
	// by the zero point before its 1.1-interval threshold, 3.x after
	// (the same samples gave 496029.9 and 490617.9).
	sq := &prometheus{t: t, base: "http://" + s.addr}
	sel := fmt.Sprintf(`{dataset=%q,host=%q}`, ops, host)
	lsel := fmt.Sprintf(`{dataset=%q,host=%q}`, lat, host)
	at := final.T.Add(-500 * time.Millisecond)
	queries := []string{
		"sonde_syscall_ops_total" + sel,
		"rate(sonde_syscall_ops_total" + sel + "[10s])",
		"increase(sonde_syscall_ops_total" + sel + "[20s])",
		"sum by (name) (rate(sonde_syscall_ops_total" + sel + "[20s]))",
		"sonde_syscall_latency_nanoseconds_count" + lsel,
		"histogram_quantile(0.99, sum by (le) (rate(sonde_syscall_latency_nanoseconds_bucket" + lsel + "[20s])))",
		"histogram_count(sonde_syscall_latency_nanoseconds" + lsel + ")",
	}
	for _, q := range queries {
		compare(t, q, p.query(q, at), sq.query(q, at))
	}
	// A quantile of native buckets: Prometheus 2.42 interpolates
	// linearly inside the bucket, Prometheus 3's engine (sonded's) on a
	// log scale; both must land in the same native bucket.
	nq := "histogram_quantile(0.5, rate(sonde_syscall_latency_nanoseconds" + lsel + "[20s]))"
	pv, sv := p.query(nq, at), sq.query(nq, at)
	if len(pv) != 1 || len(sv) != 1 {
		t.Fatalf("%s: Prometheus %v, sonded %v", nq, pv, sv)
	}
	if a, b := math.Ceil(math.Log2(pv[0].Values[0].V)), math.Ceil(math.Log2(sv[0].Values[0].V)); a != b || math.IsInf(a, 0) || math.IsNaN(a) {
		t.Errorf("%s: Prometheus %v, sonded %v: not in one native bucket", nq, pv[0].Values[0].V, sv[0].Values[0].V)
	} else {
		t.Logf("%s: Prometheus 2.42 %v, sonded %v, both in (2^%v, 2^%v]", nq, pv[0].Values[0].V, sv[0].Values[0].V, a-1, a)
	}
	// The dashboards' queries, on the same data, over windows of 10 s
	// (not the 1m of $__rate_interval): a window holding a series' first
	// sample is where the two engines' rate() differ (see queries).
	for _, dq := range dashboardQueries(t, host) {
		dq.expr = strings.ReplaceAll(dq.expr, "[1m]", "[10s]")
		if dq.metric != "" {
			pv, sv := p.labelValues(dq.label, dq.metric, first.T, final.T), sq.labelValues(dq.label, dq.metric, first.T, final.T)
			if fmt.Sprint(pv) != fmt.Sprint(sv) || len(pv) != 1 {
				t.Errorf("%s: Prometheus %v, sonded %v", dq.panel, pv, sv)
			}
			continue
		}
		pr, sr := p.query(dq.expr, at), sq.query(dq.expr, at)
		if len(pr) == 0 && len(sr) == 0 {
			t.Logf("no data in either for %s: %s", dq.panel, dq.expr)
			continue
		}
		compare(t, dq.panel+": "+dq.expr, pr, sr)
	}
	rq := "rate(sonde_syscall_ops_total" + fmt.Sprintf(`{dataset=%q,host=%q,name="write"}`, ops, host) + "[3s])"
	compare(t, rq+" from "+first.T.Format(time.RFC3339), p.queryRange(rq, first.T.Add(2500*time.Millisecond), at, time.Second),
		sq.queryRange(rq, first.T.Add(2500*time.Millisecond), at, time.Second))
}

// grepLines are the lines of s holding sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// compare fails unless Prometheus' answer and sonded's are the same:
// the same series, the same values at the same times. Values may differ
// in the last bits only (1e-12 relative): Prometheus 3's sum() adds with
// Kahan compensation, 2.42's does not.
func compare(t *testing.T, q string, prom, sonded []series) {
	t.Helper()
	byMetric := func(ss []series) map[string][]sample {
		out := map[string][]sample{}
		for _, s := range ss {
			out[fmt.Sprint(s.Metric)] = s.Values
		}
		return out
	}
	pm, sm := byMetric(prom), byMetric(sonded)
	if len(pm) == 0 {
		t.Errorf("%s: Prometheus has no answer", q)
	}
	if len(pm) != len(sm) {
		t.Errorf("%s: Prometheus has %d series, sonded %d", q, len(pm), len(sm))
	}
	rounded := 0
	for k, pv := range pm {
		sv, ok := sm[k]
		same := ok && len(pv) == len(sv)
		for i := 0; same && i < len(pv); i++ {
			a, b := pv[i].V, sv[i].V
			switch {
			case !pv[i].T.Equal(sv[i].T):
				same = false
			case a == b || math.IsNaN(a) && math.IsNaN(b):
			case math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)):
				rounded++
			default:
				same = false
			}
		}
		if !same {
			t.Errorf("%s\n  %s\n  Prometheus: %v\n  sonded:     %v", q, k, pv, sv)
		}
	}
	t.Logf("same answer from both (%d series, %d values equal to 1e-12): %s", len(pm), rounded, q)
}
