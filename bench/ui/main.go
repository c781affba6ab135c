// Command ui measures sonded's web UI in real Chromium (Debian's
// chromium, headless, driven by chromedp). After make build, from
// anywhere in the repository:
//
//	go run ./bench/ui          # print the report
//	go run ./bench/ui -write   # and rewrite its section of BENCHMARKS.md
//
// The page is the embedded bundle (internal/ui/dist) served with the real
// API handler (internal/api) over apitest's in-memory backend, filled
// with synthetic data: an hour of per-second data cannot be recorded in a
// benchmark's minutes, and what is measured is the browser's side (fetch,
// JSON, series, uPlot and canvas drawing), not the agent's reads, which
// bench/store measures. It measures:
//
//   - the first render of a worksheet of four datasets of one hour of
//     per-second data (a 20-key and a 12-key breakdown, a 3-key gauge and
//     a distribution of 40 buckets: 4 x 3,600 intervals): from the
//     navigation's start until the frame after every panel has drawn
//     (the page's "sonde-first-paint" mark);
//   - the first render of a one-week heat map (as the toolbar's "1 week"
//     reads it: 168 hours) and of a one-day one (1,440 minutes);
//   - frame times while the four charts update live (a new second every
//     second, the one-minute window): requestAnimationFrame's intervals,
//     and the page's own redraw time per update ("sonde-redraw").
//
// Each first render is also loaded once more with a trace, for the
// renderer main thread's CPU time until its paint: the page's own cost,
// which the machine's load does not multiply as it does wall time.
// BENCH_UI_TRACE=1 prints, of those loads, the main thread's time by
// trace event and its long tasks.
//
// The machine is shared: first renders are medians over -repeats fresh
// loads. Benchmarks are not tests: nothing here passes or fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	cdpperf "github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
	"github.com/sonde-trace/sonde/internal/ui"
)

var (
	repeats = flag.Int("repeats", 7, "fresh loads per first-render measurement")
	live    = flag.Duration("live", 20*time.Second, "how long the live update is measured")
	write   = flag.Bool("write", false, "rewrite bench/ui's section of BENCHMARKS.md")
)

// The four datasets of the worksheet, and their keys.
var sets = []struct {
	spec string
	keys []string
}{
	{"syscall.ops[execname]", names("proc", 20)},
	{"syscall.ops[name]", names("call", 12)},
	{"cpu.utilization[mode]", []string{"user", "kernel", "idle"}},
	{"io.latency", nil},
}

func names(p string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", p, i)
	}
	return out
}

// buckets are a log-linear distribution's 40 buckets, from 1 µs.
func buckets(r *rand.Rand, scale int64) []analytics.Bucket {
	var out []analytics.Bucket
	lo := int64(1000)
	for i := 0; i < 40; i++ {
		step := lo / 4
		if c := int64(r.ExpFloat64() * float64(scale) / float64(1+abs(i-12))); c > 0 {
			out = append(out, analytics.Bucket{Min: lo, Max: analytics.Bound(lo + step), Count: c})
		}
		lo += step
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// interval makes one interval of a dataset at t.
func interval(r *rand.Rand, spec string, keys []string, t time.Time, samples int) analytics.Second {
	s := analytics.Second{Time: t, Samples: samples}
	if keys == nil {
		b := buckets(r, int64(50*samples))
		var n int64
		for _, x := range b {
			n += x.Count
		}
		s.Rows = []analytics.Row{{Value: n, Buckets: b}}
		return s
	}
	for i, k := range keys {
		s.Rows = append(s.Rows, analytics.Row{Key: []string{k}, Value: int64(r.IntN(1000*samples)/(i+1)) + 1})
	}
	return s
}

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/ui:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := benchutil.RepoRoot()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "internal/ui/dist/app.js")); err != nil {
		return fmt.Errorf("the UI is not built (make build): %w", err)
	}
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		return fmt.Errorf("chromium is needed: %w", err)
	}
	f := apitest.New()
	r := rand.New(rand.NewPCG(1, 2))
	// The data ends now, on the fake's clock too (Complete moves it), as
	// on an agent: the page reads a live window's new seconds only.
	end := time.Now().Truncate(time.Second)
	for _, d := range sets {
		if _, err := f.Create(d.spec, analytics.Archived); err != nil {
			return err
		}
		var secs []analytics.Second
		for t := end.Add(-time.Hour); t.Before(end.Add(-time.Second)); t = t.Add(time.Second) {
			secs = append(secs, interval(r, d.spec, d.keys, t, 1))
		}
		f.Put(d.spec, analytics.PerSecond, secs...)
		f.Complete(d.spec, interval(r, d.spec, d.keys, end.Add(-time.Second), 1))
	}
	var hours, minutes []analytics.Second
	for t := end.Add(-7 * 24 * time.Hour).Truncate(time.Hour); t.Before(end); t = t.Add(time.Hour) {
		hours = append(hours, interval(r, "io.latency", nil, t, 3600))
	}
	for t := end.Add(-24 * time.Hour).Truncate(time.Minute); t.Before(end); t = t.Add(time.Minute) {
		minutes = append(minutes, interval(r, "io.latency", nil, t, 60))
	}
	f.Put("io.latency", analytics.PerHour, hours...)
	f.Put("io.latency", analytics.PerMinute, minutes...)
	all := make([]string, len(sets))
	for i, d := range sets {
		all[i] = d.spec
	}
	hour, _ := f.SaveWorksheet(analytics.Worksheet{Name: "hour", Datasets: all, Seconds: 3600})
	week, _ := f.SaveWorksheet(analytics.Worksheet{Name: "week", Datasets: []string{"io.latency"}, Seconds: 7 * 86400})
	day, _ := f.SaveWorksheet(analytics.Worksheet{Name: "day", Datasets: []string{"io.latency"}, Seconds: 86400})
	liveWS, _ := f.SaveWorksheet(analytics.Worksheet{Name: "live", Datasets: all, Seconds: 60})

	srv := httptest.NewUnstartedServer(ui.WithAPI(api.New(f, &api.Options{Now: f.Now})))
	srv.Config.ConnContext = api.ConnContext(srv.Listener) // loopback: no credentials, as sonded
	srv.Start()
	defer srv.Close()

	profile, err := os.MkdirTemp("", "bench-ui-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1000), chromedp.UserDataDir(profile))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel2 := chromedp.NewContext(actx)
	defer cancel2()
	var version string
	if os.Getenv("BENCH_UI_PROFILE") != "" {
		if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(`window.__measures = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__measures.push([e.name, Math.round(e.startTime), Math.round(e.duration)]); }).observe({entryTypes: ["measure", "longtask"]});`).Do(ctx)
			return err
		})); err != nil {
			return err
		}
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`navigator.userAgent`, &version)); err != nil {
		return fmt.Errorf("chromium: %w", err)
	}

	// first answers the first renders' times (ms) and, of each, when the
	// last data answer had arrived (the agent's side: its reads and JSON).
	first := func(id string) ([]float64, []float64, float64, error) {
		var ms, data []float64
		var cpu float64
		for i := 0; i <= *repeats; i++ {
			// One more load, traced, for the main thread's CPU time
			// (tracing slows it: that load is not timed).
			traced := i == *repeats
			prof := os.Getenv("BENCH_UI_PROFILE") != "" && i == 0
			if err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
				return nil, nil, 0, err
			}
			var before map[string]float64
			if prof {
				if err := chromedp.Run(ctx, cdpperf.Enable(), profiler.Enable(), profiler.SetSamplingInterval(200), profiler.Start()); err != nil {
					return nil, nil, 0, err
				}
				if before, err = metrics(ctx); err != nil {
					return nil, nil, 0, err
				}
			}
			var tr *tracer
			if traced {
				if tr, err = startTrace(ctx); err != nil {
					return nil, nil, 0, err
				}
			}
			if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/#/worksheet/"+id)); err != nil {
				return nil, nil, 0, fmt.Errorf("worksheet %s: %w", id, err)
			}
			t, err := waitFor(ctx, `(() => { const e = performance.getEntriesByName("sonde-first-paint"); return e.length ? e[0].startTime : -1; })()`)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("first render of worksheet %s: %w", id, err)
			}
			if tr != nil {
				if cpu, err = tr.stop(ctx, os.Getenv("BENCH_UI_TRACE") != ""); err != nil {
					return nil, nil, 0, err
				}
				continue
			}
			ms = append(ms, t)
			if prof {
				if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
					p, err := profiler.Stop().Do(ctx)
					if err != nil {
						return err
					}
					printProfile(p)
					after, err := metrics(ctx)
					for _, k := range []string{"TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration"} {
						fmt.Fprintf(os.Stderr, "%8.1f ms  %s\n", 1000*(after[k]-before[k]), k)
					}
					return err
				})); err != nil {
					return nil, nil, 0, err
				}
			}
			var d float64
			if err := chromedp.Run(ctx, chromedp.Evaluate(`Math.max(...performance.getEntriesByType("resource").filter((e) => e.name.includes("/data?")).map((e) => e.responseEnd))`, &d)); err != nil {
				return nil, nil, 0, err
			}
			data = append(data, d)
			// BENCH_UI_PROFILE=1 prints each load's requests: start, first byte and end (ms) and size.
			if os.Getenv("BENCH_UI_PROFILE") != "" {
				var res string
				_ = chromedp.Run(ctx, chromedp.Evaluate(`JSON.stringify(performance.getEntriesByType("resource").map((e) => [e.name.slice(-50), Math.round(e.startTime), Math.round(e.responseStart), Math.round(e.responseEnd), e.encodedBodySize]).concat(window.__measures))`, &res))
				fmt.Fprintln(os.Stderr, res)
			}
		}
		return ms, data, cpu, nil
	}
	rep := report{chrome: version, repeats: *repeats, load: benchutil.Loadavg()}
	if rep.hour, rep.hourData, rep.hourCPU, err = first(hour.ID); err != nil {
		return err
	}
	if rep.week, rep.weekData, rep.weekCPU, err = first(week.ID); err != nil {
		return err
	}
	if rep.day, rep.dayData, rep.dayCPU, err = first(day.ID); err != nil {
		return err
	}

	// Live: a new second of every dataset each second.
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(srv.URL+"/#/worksheet/"+liveWS.ID)); err != nil {
		return fmt.Errorf("live worksheet: %w", err)
	}
	if _, err := waitFor(ctx, `performance.getEntriesByName("sonde-first-paint").length - 1`); err != nil {
		return fmt.Errorf("live worksheet: %w", err)
	}
	stop := make(chan struct{})
	go func() {
		t := f.Now().Add(time.Second)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for _, d := range sets {
				f.Complete(d.spec, interval(r, d.spec, d.keys, t, 1))
			}
			t = t.Add(time.Second)
		}
	}()
	var res struct {
		Frames  []float64 `json:"frames"`
		Redraws []float64 `json:"redraws"`
		Long    int       `json:"long"`
	}
	script := fmt.Sprintf(`new Promise((done) => {
		const frames = [], redraws = []; let long = 0, last = null;
		new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.name === "sonde-redraw") redraws.push(e.duration); }).observe({type: "measure"});
		new PerformanceObserver((l) => { long += l.getEntries().length; }).observe({type: "longtask"});
		const until = performance.now() + %d;
		const step = (t) => { if (last !== null) frames.push(t - last); last = t;
			if (t < until) requestAnimationFrame(step); else done({frames, redraws, long}); };
		requestAnimationFrame(step);
	})`, live.Milliseconds())
	err = chromedp.Run(ctx, chromedp.Evaluate(script, &res, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	close(stop)
	if err != nil {
		return fmt.Errorf("live: %w", err)
	}
	rep.frames, rep.redraws, rep.long = res.Frames, res.Redraws, res.Long
	rep.duration = *live
	text := rep.markdown()
	fmt.Print(text)
	if *write {
		return benchutil.WriteSection(filepath.Join(root, "BENCHMARKS.md"), "ui", text)
	}
	return nil
}

// metrics reads the page's performance metrics (seconds for durations).
func metrics(ctx context.Context) (map[string]float64, error) {
	out := map[string]float64{}
	err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		ms, err := cdpperf.GetMetrics().Do(ctx)
		for _, m := range ms {
			out[m.Name] = m.Value
		}
		return err
	}))
	return out, err
}

// printProfile prints the functions with the most self time of a CPU
// profile (BENCH_UI_PROFILE).
func printProfile(p *profiler.Profile) {
	name := map[int64]string{}
	for _, n := range p.Nodes {
		u := n.CallFrame.URL
		if i := strings.LastIndex(u, "/"); i >= 0 {
			u = u[i+1:]
		}
		name[n.ID] = fmt.Sprintf("%s %s:%d", n.CallFrame.FunctionName, u, n.CallFrame.LineNumber)
	}
	self := map[string]float64{}
	for i, id := range p.Samples {
		if i+1 < len(p.TimeDeltas) {
			self[name[id]] += float64(p.TimeDeltas[i+1]) / 1000
		}
	}
	for _, k := range top(self, 15) {
		fmt.Fprintf(os.Stderr, "%8.1f ms  %s\n", self[k], k)
	}
	// The lines that took the most samples (an unminified bundle names them).
	ticks := map[string]float64{}
	for _, n := range p.Nodes {
		for _, t := range n.PositionTicks {
			ticks[fmt.Sprintf("%s line %d", name[n.ID], t.Line)] += float64(t.Ticks)
		}
	}
	for _, k := range top(ticks, 10) {
		fmt.Fprintf(os.Stderr, "%8.0f samples  %s\n", ticks[k], k)
	}
}

// top lists the n keys of m with the largest values, largest first.
func top(m map[string]float64, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	return keys[:min(n, len(keys))]
}

// waitFor evaluates expr until it is not negative (a minute at most).
func waitFor(ctx context.Context, expr string) (float64, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		var v float64
		err := chromedp.Run(ctx, chromedp.Evaluate(expr, &v))
		if err == nil && v >= 0 {
			return v, nil
		}
		if time.Now().After(deadline) {
			var page string
			_ = chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("toast").textContent + " | " + document.getElementById("main").innerText.slice(0, 500)`, &page))
			return 0, fmt.Errorf("waited a minute for %s: %v\n%s", expr, err, page)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var chromeVersion = regexp.MustCompile(`Chrome/\S+`)

type report struct {
	chrome          string
	repeats         int
	load            float64
	hour, week, day []float64
	// when the last data answer had arrived, in the same loads
	hourData, weekData, dayData []float64
	// the renderer main thread's CPU time until the first paint, ms, of
	// one more (traced) load
	hourCPU, weekCPU, dayCPU float64
	frames, redraws          []float64
	long                     int
	duration                 time.Duration
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func (r report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## The web UI in Chromium (`go run ./bench/ui`)\n\n")
	fmt.Fprintf(&b, "Written by bench/ui (after `make build`). The embedded bundle and the real API handler over apitest's\n"+
		"in-memory backend with synthetic data (an hour of seconds cannot be recorded in a benchmark's minutes; the\n"+
		"agent's reads are bench/store's), in headless Chromium (%s) through chromedp, on the shared 2-CPU\n"+
		"machine (load average %.1f at the start). First renders: from the navigation's start to the frame after every\n"+
		"panel has drawn, median (min-max) of %d fresh loads. Live: %v of requestAnimationFrame intervals while a\n"+
		"new second of each of four datasets arrives every second (one-minute window); redraw is the page's own time\n"+
		"per update (fetch excluded: it is asynchronous).\n\n", chromeVersion.FindString(r.chrome), r.load, r.repeats, r.duration)
	row := func(what, target string, ms, data []float64, cpu float64) {
		fmt.Fprintf(&b, "| %s | %s | %.0f (%.0f-%.0f) | %.0f | %.0f |\n", what, target, benchutil.Median(ms), quantile(ms, 0), quantile(ms, 1), benchutil.Median(data), cpu)
	}
	fmt.Fprintf(&b, "| first render | target, ms | painted, ms | of which: data answered by, ms | main-thread CPU, ms |\n|---|---|---|---|---|\n")
	row("worksheet of 4 datasets x 1 hour of seconds (4 x 3,600 intervals)", "< 1000", r.hour, r.hourData, r.hourCPU)
	row("heat map, 1 week (168 hours x 40 buckets)", "< 300", r.week, r.weekData, r.weekCPU)
	row("heat map, 1 day (1,440 minutes x 40 buckets)", "< 300", r.day, r.dayData, r.dayCPU)
	fps := float64(len(r.frames)) / r.duration.Seconds()
	slow := 0
	for _, f := range r.frames {
		if f > 1.5*1000/60 {
			slow++
		}
	}
	fmt.Fprintf(&b, "\n| live, 4 charts | target | measured |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| frames per second | 60 | %.1f |\n", fps)
	fmt.Fprintf(&b, "| frame interval, ms: median / p95 / p99 / max | 16.7 | %.1f / %.1f / %.1f / %.1f |\n",
		quantile(r.frames, 0.5), quantile(r.frames, 0.95), quantile(r.frames, 0.99), quantile(r.frames, 1))
	fmt.Fprintf(&b, "| frames over 25 ms | | %d of %d |\n", slow, len(r.frames))
	fmt.Fprintf(&b, "| redraw per update, ms: median / max (%d updates) | | %.1f / %.1f |\n", len(r.redraws), quantile(r.redraws, 0.5), quantile(r.redraws, 1))
	fmt.Fprintf(&b, "| long tasks (> 50 ms) | | %d |\n\n", r.long)
	fmt.Fprintf(&b, "Notes. \"Data answered by\" is when the last of the worksheet's data answers had arrived: before it,\n"+
		"the page loads and asks; the API's share is the reads and their JSON (the compact answer, format=columns:\n"+
		"1.1 MB for the hour worksheet, where the default answer is 24 MB of indented JSON). After it, the page\n"+
		"parses and draws. \"Main-thread CPU\" is the renderer main thread's CPU time from the navigation to that\n"+
		"paint, of one more load traced (`BENCH_UI_TRACE=1 go run ./bench/ui` prints where it goes): the page's own\n"+
		"cost. The machine's load (the other helpers' builds and tests on 2 CPUs) multiplies the wall times here\n"+
		"and varies from run to run: the first renders' range shows it. Live, the page's own work is the redraw a\n"+
		"second in the table; the late frames are when the machine is busiest.\n\n")
	return b.String()
}
