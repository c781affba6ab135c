package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// screenshotDir is where the UI tests put their screenshots:
// $SONDE_UI_SCREENSHOTS, or a temporary directory when it is unset.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("SONDE_UI_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

// The web UI in real Chromium against a real agent tracing a real dd: a
// worksheet is created, a syscall-ops chart updates live, clicking the
// dd's legend entry and choosing "name" makes a drill-down dataset whose
// chart shows write (and the agent has it, its filter a predicate in its
// program), the worksheet's URL reopens it, a latency heat map draws
// cells and hovering it shows a bucket, the datasets view lists the new
// dataset with its program and suspends and resumes it, and bad D in "new
// statistic from D" shows the compiler's positioned message. Screenshots
// of each view go to $SONDE_UI_SCREENSHOTS (a temporary directory when
// unset).
func TestUI(t *testing.T) {
	shots := screenshotDir(t)
	// No budget: on a busy machine syscall.latency may cost more than the
	// default 5% of a CPU, and its auto-suspension would stop the heat map.
	s := startSonded(t, t.TempDir(), "--budget", "-1")
	name, dd := uniqueDD(t, "uidd")
	writeLoop(t, dd)
	ctx := browser(t)
	root := "http://" + s.addr + "/"

	b := &page{t: t, ctx: ctx}
	b.run(chromedp.Navigate(root))
	b.waitJS(`document.body.dataset.ready === "1"`)
	b.run(chromedp.SetValue("#ws-name", "ui test", chromedp.ByQuery),
		chromedp.Click("#ws-new", chromedp.ByQuery))
	b.waitJS(`!document.querySelector("#add-btn").disabled`)
	b.add("syscall.ops[execname]")

	// Live: what the chart draws changes from one read to a later one.
	parent := `section.panel[data-name="syscall.ops[execname]"]`
	entry := parent + ` .legend .entry[data-key="` + name + `"]`
	b.waitJS(fmt.Sprintf(`!!document.querySelector(%q)`, entry))
	first := b.drawn("syscall.ops[execname]")
	b.waitJS(fmt.Sprintf(`sondeUI.sheet.drawn("syscall.ops[execname]") !== %q`, first))

	// Drill down, from the keyboard: Enter on the dd's entry opens the
	// menu with the focus on its first breakdown, Escape closes it and
	// gives the focus back; then dd by name, which shows write.
	b.run(chromedp.Focus(entry, chromedp.ByQuery), chromedp.KeyEvent("\r"))
	b.waitJS(`document.activeElement.getAttribute("role") === "menuitem" && document.activeElement.closest(` + strconv.Quote(parent) + `) !== null`)
	b.run(chromedp.KeyEvent(kb.Escape))
	b.waitJS(`!document.querySelector(".menu") && document.activeElement.dataset.key === ` + strconv.Quote(name))
	child := "syscall.ops[execname=" + name + "][name]"
	b.run(chromedp.Click(entry, chromedp.ByQuery),
		chromedp.Click(parent+` .menu button[data-breakdown="name"]`, chromedp.ByQuery))
	childSel := fmt.Sprintf(`section.panel[data-name=%q]`, child)
	b.waitJS(fmt.Sprintf(`!!document.querySelector(%q)`, childSel+` .legend .entry[data-key="write"]`))
	b.waitJS(fmt.Sprintf(`document.querySelector(%q).previousElementSibling === document.querySelector(%q)`, childSel, parent))
	checkAgentHas(t, s, child, `execname == "`+name+`"`)

	// Hovering a chart shows the second under the cursor and its value.
	var over []float64
	b.run(chromedp.Evaluate(`(() => { const o = document.querySelector(`+strconv.Quote(childSel+" .u-over")+`);
		o.scrollIntoView({block: "center"}); const r = o.getBoundingClientRect();
		return [r.left + r.width * 0.75, r.top + r.height / 2]; })()`, &over))
	b.run(chromedp.MouseEvent(input.MouseMoved, over[0], over[1]))
	b.waitJS(`(() => { const p = sondeUI.sheet.panels.get(` + strconv.Quote(child) + `), u = p.view.u, i = u.cursor.idx;
		return i !== null && i !== undefined && p.readout.textContent.startsWith(new Date(u.data[0][i] * 1000).toISOString().slice(11, 19)) &&
			/ total \S+/.test(p.readout.textContent); })()`)
	b.run(chromedp.MouseEvent(input.MouseMoved, 1, 1))

	// A heat map of a distribution.
	b.add("syscall.latency")
	// Cells in at least five columns: a column a second, drawn live.
	b.waitJS(`Number((document.querySelector('section.panel[data-name="syscall.latency"] canvas.heatmap') || {dataset: {}}).dataset.columns) >= 5`)
	b.run(chromedp.SetValue(`section.panel[data-name="syscall.latency"] select.shading`, "linear", chromedp.ByQuery))
	b.run(chromedp.Evaluate(`document.querySelector('section.panel[data-name="syscall.latency"] select.shading').dispatchEvent(new Event("change"))`, nil))
	b.waitJS(`Number(document.querySelector('section.panel[data-name="syscall.latency"] canvas.heatmap').dataset.cells) > 0`)
	b.run(chromedp.SetValue(`section.panel[data-name="syscall.latency"] select.shading`, "rank", chromedp.ByQuery))
	b.run(chromedp.Evaluate(`document.querySelector('section.panel[data-name="syscall.latency"] select.shading').dispatchEvent(new Event("change"))`, nil))
	if os.Getenv("SONDE_UI_SCREENSHOTS") != "" {
		// Screenshots for the documentation: wait for most of a minute of data.
		b.waitJSFor(`Number(document.querySelector('section.panel[data-name="syscall.latency"] canvas.heatmap').dataset.columns) >= 45`, 2*time.Minute)
	}

	// Hovering the heat map shows a bucket's range and its count.
	heat := `section.panel[data-name="syscall.latency"]`
	var at []float64
	b.run(chromedp.Evaluate(`(() => { const c = document.querySelector('`+heat+` canvas.heatmap');
		c.scrollIntoView({block: "center"}); const r = c.getBoundingClientRect();
		return [r.right - 3, r.top + r.height / 2]; })()`, &at))
	b.run(chromedp.MouseEvent(input.MouseMoved, at[0], at[1]))
	b.waitJS(`/\[[^,]+, [^)]+\): \d/.test(document.querySelector('` + heat + ` .readout').textContent)`)
	b.shot(filepath.Join(shots, "worksheet.png"))
	b.run(chromedp.Click("#theme", chromedp.ByQuery))
	b.waitJS(`document.documentElement.dataset.theme === "dark" && !!document.querySelector(` + strconv.Quote(childSel+` .legend .entry[data-key="write"]`) + `)`)
	b.shot(filepath.Join(shots, "worksheet-dark.png"))
	b.run(chromedp.Click("#theme", chromedp.ByQuery))

	// The worksheet's URL reopens it, saved on the agent.
	var url string
	b.run(chromedp.Location(&url))
	if !strings.Contains(url, "#/worksheet/") {
		t.Fatalf("the worksheet's URL is %s", url)
	}
	b.run(chromedp.Navigate("about:blank"), chromedp.Navigate(url))
	b.waitJS(fmt.Sprintf(`!!document.querySelector(%q)`, childSel+` .legend .entry[data-key="write"]`))

	// Rename and clone, on the agent.
	b.run(chromedp.SetValue("#ws-name", "ui test renamed", chromedp.ByQuery), chromedp.Click("#ws-rename", chromedp.ByQuery))
	b.waitJS(`[...document.querySelectorAll("#ws-open option")].some((o) => o.textContent === "ui test renamed")`)
	b.run(chromedp.SetValue("#ws-name", "ui test clone", chromedp.ByQuery), chromedp.Click("#ws-clone", chromedp.ByQuery))
	b.waitJS(`[...document.querySelectorAll("#ws-open option")].some((o) => o.selected && o.textContent === "ui test clone")`)
	checkWorksheets(t, s, map[string][]string{
		"ui test renamed": {"syscall.ops[execname]", child, "syscall.latency"},
		"ui test clone":   {"syscall.ops[execname]", child, "syscall.latency"},
	})

	// The datasets view lists the drill-down with its program.
	b.run(chromedp.Navigate(root + "#/datasets"))
	b.waitJS(fmt.Sprintf(`(document.querySelector('tr[data-name=%s] pre.program') || {}).textContent?.includes(%q)`,
		strconv.Quote(child), `execname == "`+name+`"`))
	row := fmt.Sprintf(`tr[data-name=%q]`, child)
	b.run(chromedp.Click(row+" summary", chromedp.ByQuery))
	b.shot(filepath.Join(shots, "datasets.png"))

	// Suspend and resume from the datasets view: the agent's state follows.
	b.run(chromedp.Click(row+" td.actions button", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent === "suspended"`, row+" td.state"))
	if st := datasetState(t, s, child); st != "suspended" {
		t.Errorf("after Suspend the agent has %s %s", child, st)
	}
	b.run(chromedp.Click(row+" td.actions button", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent === "archived"`, row+" td.state"))
	if st := datasetState(t, s, child); st != "archived" {
		t.Errorf("after Resume the agent has %s %s", child, st)
	}

	// Bad D gets the compiler's positioned message inline.
	b.run(chromedp.Navigate(root+"#/statistics"), chromedp.WaitVisible("#d-source", chromedp.ByQuery),
		chromedp.SetValue("#d-name", "bad.d", chromedp.ByQuery),
		chromedp.SetValue("#d-source", "syscall:::entry { @[execname] = count(; }", chromedp.ByQuery),
		chromedp.Click("#d-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#d-error", chromedp.ByQuery))
	var msg string
	b.run(chromedp.Text("#d-error", &msg, chromedp.ByQuery))
	if !strings.Contains(msg, ":1:") || !strings.Contains(msg, "^") {
		t.Errorf("bad D's message has no position and caret: %q", msg)
	}
	b.shotOf("form.newstat", filepath.Join(shots, "statistics.png"))
}

// writeLoop runs dd's one-byte writes in bursts until the test ends.
func writeLoop(t *testing.T, dd string) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			_ = exec.Command(dd, "if=/dev/zero", "of=/dev/null", "bs=1", "count=5000", "status=none").Run()
		}
	}()
	t.Cleanup(func() { close(stop); wg.Wait() })
}

// browser starts headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is needed (Debian's chromium package; .ci/run installs it): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return ctx
}

// page drives the browser; every step has a hang guard, none a timing
// assertion.
type page struct {
	t   *testing.T
	ctx context.Context
}

func (p *page) run(actions ...chromedp.Action) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v\n%s", err, p.status())
	}
}

// waitJS waits until expr is true in the page.
func (p *page) waitJS(expr string) {
	p.t.Helper()
	p.waitJSFor(expr, time.Minute)
}

// waitJSFor waits up to limit (a hang guard) until expr is true.
func (p *page) waitJSFor(expr string, limit time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var ok bool
		err := chromedp.Run(p.ctx, chromedp.Evaluate("!!("+expr+")", &ok))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waited %v for %s (%v)\n%s", limit, expr, err, p.status())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// status is the page's status line and panels, for failures.
func (p *page) status() string {
	var s string
	_ = chromedp.Run(p.ctx, chromedp.Evaluate(`document.getElementById("toast").textContent + "\n" + JSON.stringify({...(document.querySelector("#t-range") || {}).dataset}) + " xs " + (window.sondeUI && sondeUI.sheet.xs && [sondeUI.sheet.xs[0], sondeUI.sheet.xs.length]) + "\n" + document.getElementById("main").innerText.slice(0, 3000)`, &s))
	return s
}

func (p *page) drawn(name string) string {
	p.t.Helper()
	var s string
	p.run(chromedp.Evaluate(fmt.Sprintf(`sondeUI.sheet.drawn(%q) || ""`, name), &s))
	return s
}

// add adds a dataset to the open worksheet and waits for its panel.
func (p *page) add(spec string) {
	p.t.Helper()
	p.run(chromedp.SetValue("#add-spec", spec, chromedp.ByQuery), chromedp.Click("#add-btn", chromedp.ByQuery))
	p.waitJS(fmt.Sprintf(`!!document.querySelector('section.panel[data-name=%s] .plot')`, strconv.Quote(spec)))
}

func (p *page) shot(path string) {
	p.t.Helper()
	var png []byte
	p.run(chromedp.FullScreenshot(&png, 100))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// shotOf screenshots the element sel.
func (p *page) shotOf(sel, path string) {
	p.t.Helper()
	var png []byte
	p.run(chromedp.Screenshot(sel, &png, chromedp.ByQuery))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// checkWorksheets checks the agent's worksheets: their names and datasets.
func checkWorksheets(t *testing.T, s *sonded, want map[string][]string) {
	t.Helper()
	var list struct {
		Worksheets []struct {
			Name     string   `json:"name"`
			Datasets []string `json:"datasets"`
		} `json:"worksheets"`
	}
	if st, body := s.call("GET", "/worksheets", nil, &list); st != 200 {
		t.Fatalf("worksheets: %d %s", st, body)
	}
	got := map[string][]string{}
	for _, w := range list.Worksheets {
		got[w.Name] = w.Datasets
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("worksheets: got %v, want %v", got, want)
	}
}

// datasetState is the agent's state of a dataset.
func datasetState(t *testing.T, s *sonded, name string) string {
	t.Helper()
	var d struct {
		Dataset struct {
			State string `json:"state"`
		} `json:"dataset"`
	}
	if st, body := s.call("GET", datasetPath(name), nil, &d); st != 200 {
		t.Fatalf("dataset %s: %d %s", name, st, body)
	}
	return d.Dataset.State
}

// checkAgentHas checks the agent's /datasets for name, with the predicate
// in its program.
func checkAgentHas(t *testing.T, s *sonded, name, predicate string) {
	t.Helper()
	var list struct {
		Datasets []struct {
			Name    string `json:"name"`
			Program string `json:"program"`
		} `json:"datasets"`
	}
	if st, body := s.call("GET", "/datasets", nil, &list); st != 200 {
		t.Fatalf("datasets: %d %s", st, body)
	}
	for _, d := range list.Datasets {
		if d.Name == name {
			if !strings.Contains(d.Program, predicate) {
				t.Errorf("%s's program has no %s:\n%s", name, predicate, d.Program)
			}
			return
		}
	}
	b, _ := json.Marshal(list)
	t.Errorf("the agent has no dataset %s: %s", name, b)
}

// The time toolbar, heat-map crop and selection, and flame graphs, in
// real Chromium against a real agent tracing a real dd. Every number the
// page shows is checked against the agent's own answer for the same
// window: the min/max markers, the CSV export, the events of a selected
// rectangle (by key too) and a flame graph's total. Screenshots go to
// $SONDE_UI_SCREENSHOTS as in TestUI.
func TestUIAnalysis(t *testing.T) {
	shots := screenshotDir(t)
	s := startSonded(t, t.TempDir(), "--budget", "-1")
	name, dd := uniqueDD(t, "uiandd")
	writeLoop(t, dd)
	ctx := browser(t)
	downloads := t.TempDir()
	b := &page{t: t, ctx: ctx}
	b.run(cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(downloads))
	b.run(chromedp.Navigate("http://" + s.addr + "/"))
	b.waitJS(`document.body.dataset.ready === "1"`)
	b.run(chromedp.SetValue("#ws-name", "analysis", chromedp.ByQuery), chromedp.Click("#ws-new", chromedp.ByQuery))
	b.waitJS(`!document.querySelector("#add-btn").disabled && !!document.querySelector("#t-pause")`)
	ops := "syscall.ops[execname]"
	flame := "fault.ops[execname=" + name + "][stack]"
	created := time.Now()
	for _, d := range []string{ops, "syscall.latency", flame} {
		b.add(d)
	}
	// Ten seconds of data in each, the dd's page faults in the flame graph.
	b.waitJSFor(`(() => { const p = sondeUI.sheet.panels; return p.get("syscall.ops[execname]").intervals.filter((i) => i.data).length >= 10 &&
		Number(document.querySelector('section.panel[data-name="syscall.latency"] canvas.heatmap').dataset.columns) >= 10 &&
		Number((document.querySelector(".flame") || {dataset: {}}).dataset.total) > 0; })()`, 2*time.Minute)

	// Pause: the window stops where it is; what the page shows from now on
	// is final, and the agent answers the same window the same.
	b.run(chromedp.Click("#t-pause", chromedp.ByQuery))
	b.waitJS(`document.querySelector("#t-range").dataset.live === "false"`)
	from, to := b.window()
	if to-from != 60 {
		t.Fatalf("a minute's window is [%d, %d)", from, to)
	}
	tail := `sondeUI.sheet.xs && sondeUI.sheet.xs[sondeUI.sheet.xs.length - 1] === ` + strconv.FormatInt(to-1, 10)
	b.waitJS(tail)

	// Min/max markers: the total's extremes over the window, as the agent has them.
	b.run(chromedp.Click("#t-minmax", chromedp.ByQuery))
	opsSel := `section.panel[data-name="syscall.ops[execname]"]`
	b.waitJS(`!document.querySelector('` + opsSel + ` .minmax').hidden`)
	agent := s.window(ops, from, to, "second")
	lo, hi := int64(-1), int64(-1)
	for _, iv := range agent {
		v := iv.Data.Value
		if lo < 0 || v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	var mm map[string]string
	b.run(chromedp.Evaluate(`({...document.querySelector('`+opsSel+` .minmax').dataset})`, &mm))
	if mm["min"] != strconv.FormatInt(lo, 10) || mm["max"] != strconv.FormatInt(hi, 10) {
		t.Errorf("min/max markers %v; the agent's window has min %d, max %d", mm, lo, hi)
	}

	// CSV export: the dd's count in every second of the window, exactly.
	b.run(chromedp.Click("#t-csv", chromedp.ByQuery))
	rows := readCSV(t, downloads)
	want := map[string]string{}
	for _, iv := range agent {
		for _, k := range iv.Data.Data {
			if k.Key == name {
				want[time.Unix(iv.Sample, 0).UTC().Format(time.RFC3339)] = strconv.FormatInt(k.Value, 10)
			}
		}
	}
	got := map[string]string{}
	for _, r := range rows {
		if r[2] == ops && r[3] == name {
			got[r[0]] = r[6]
		}
	}
	if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CSV rows of %s in %s:\n got %v\nwant %v", name, ops, got, want)
	}
	if rows[0][0] != "time" || rows[0][6] != "value" {
		t.Errorf("CSV header %v", rows[0])
	}

	// A rectangle of the heat map: its events, as the agent's buckets add up.
	heat := `section.panel[data-name="syscall.latency"]`
	b.drag(heat+" canvas.heatmap", 0.8, 0.02, 0.995, 0.9)
	b.waitJS(`!document.querySelector('` + heat + ` .selection').hidden`)
	var sel map[string]string
	b.run(chromedp.Evaluate(`({...document.querySelector('`+heat+` .selection').dataset})`, &sel))
	if n := s.rectCount("syscall.latency", sel, ""); strconv.FormatInt(n, 10) != sel["count"] || n == 0 {
		t.Errorf("the selection %v counts %s events; the agent's buckets add up to %d", sel, sel["count"], n)
	}
	// The keyboard selects too: a cell, then shift+arrows grow it.
	b.run(chromedp.Focus(heat+" canvas.heatmap", chromedp.ByQuery), chromedp.KeyEvent(kb.ArrowLeft),
		chromedp.KeyEvent(kb.ArrowLeft, chromedp.KeyModifiers(input.ModifierShift)), chromedp.KeyEvent(kb.ArrowUp, chromedp.KeyModifiers(input.ModifierShift)),
		chromedp.KeyEvent("\r"))
	b.waitJS(`(() => { const d = document.querySelector('` + heat + ` .selection').dataset; return d.to - d.from === 2 && d.to === "` + strconv.FormatInt(to-1, 10) + `"; })()`)
	b.run(chromedp.Evaluate(`({...document.querySelector('`+heat+` .selection').dataset})`, &sel))
	if n := s.rectCount("syscall.latency", sel, ""); strconv.FormatInt(n, 10) != sel["count"] {
		t.Errorf("the keyboard's selection %v counts %s events; the agent's buckets add up to %d", sel, sel["count"], n)
	}

	// Crop outliers: the rows above the 99.9th percentile go, holding at
	// most 0.1% of the window's events.
	b.run(chromedp.Click(heat+" input.crop", chromedp.ByQuery))
	var crop []float64
	b.run(chromedp.Evaluate(`(() => { const c = document.querySelector('`+heat+` canvas.heatmap'), g = sondeUI.sheet.panels.get("syscall.latency").view.g;
		let total = 0; for (const n of g.counts) total += n;
		return [Number(c.dataset.rows), Number(c.dataset.allRows), Number(c.dataset.dropped), total]; })()`, &crop))
	if crop[0] > crop[1] || crop[2]*1000 > crop[3] || crop[3] == 0 {
		t.Errorf("crop outliers: rows kept, all rows, events dropped, events: %v", crop)
	}

	// The flame graph sums the window's stacks: its total is the agent's.
	fl := fmt.Sprintf(`section.panel[data-name=%q] .flame`, flame)
	var sum int64
	for _, iv := range s.window(flame, from, to, "second") {
		sum += iv.Data.Value
	}
	b.waitJS(fmt.Sprintf(`document.querySelector(%q).dataset.total === "%d"`, fl, sum))
	// Clicking a frame zooms to it: it takes the whole width.
	frame := fl + ` .frame[data-path="vmlinux` + "`" + `asm_exc_page_fault"]`
	b.run(chromedp.Click(frame, chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.querySelector(%q).dataset.zoom === "vmlinux`+"`"+`asm_exc_page_fault" && document.querySelector(%q).style.width === "100%%"`, fl, frame))
	b.shotOf(fmt.Sprintf(`section.panel[data-name=%q]`, flame), filepath.Join(shots, "flamegraph.png"))
	b.run(chromedp.Click(fl+` .frame[data-path=""]`, chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.querySelector(%q).dataset.zoom === ""`, fl))
	b.shot(filepath.Join(shots, "toolbar.png"))

	// Back half a window, forward again, zoom, then forward to now.
	b.run(chromedp.Click("#t-back", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.to === "%d" && sondeUI.sheet.xs[0] === %d`, to-30, from-30))
	b.run(chromedp.Click("#t-fwd", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.to === "%d"`, to))
	b.run(chromedp.Click("#t-zoomin", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.from === "%d" && sondeUI.sheet.xs.length === 30`, to-30))
	b.run(chromedp.Click("#t-zoomout", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.from === "%d"`, from))

	// The window is in the URL. The browser's back and forward step
	// through the windows shown, without reloading the worksheet.
	b.run(chromedp.Evaluate(`document.querySelector('`+opsSel+`').dataset.mark = "kept"`, nil))
	b.run(chromedp.Evaluate(`history.back()`, nil))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.from === "%d" && document.querySelector("#t-range").dataset.to === "%d" && sondeUI.sheet.xs.length === 30`, to-30, to))
	b.run(chromedp.Evaluate(`history.forward()`, nil))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.from === "%d" && document.querySelector("#t-range").dataset.to === "%d" && sondeUI.sheet.xs.length === 60`, from, to))
	b.waitJS(`document.querySelector('` + opsSel + `').dataset.mark === "kept"`)
	// Reloading the URL (or opening it elsewhere) reopens the worksheet at
	// that window, paused, drawing the agent's numbers for it.
	var paused string
	b.run(chromedp.Location(&paused))
	if !strings.Contains(paused, "span=60") || !strings.Contains(paused, "end="+time.Unix(to, 0).UTC().Format(time.RFC3339)) {
		t.Errorf("the paused window [%d, %d) is not in the URL %s", from, to, paused)
	}
	b.run(chromedp.Navigate("about:blank"), chromedp.Navigate(paused))
	b.waitJS(fmt.Sprintf(`(() => { const d = (document.querySelector("#t-range") || {dataset: {}}).dataset, p = sondeUI.sheet.panels.get(%q);
		return d.live === "false" && d.from === "%d" && d.to === "%d" && !!p && !!p.view && !!p.view.series && p.view.series.xs[0] === %d; })()`, ops, from, to, from))
	var reopened [][]*float64
	b.run(chromedp.Evaluate(fmt.Sprintf(`[sondeUI.sheet.xs, sondeUI.sheet.panels.get(%q).view.series.total]`, ops), &reopened))
	agentTotal := map[int64]int64{}
	for _, iv := range s.window(ops, from, to, "second") {
		agentTotal[iv.Sample] = iv.Data.Value
	}
	for i, x := range reopened[0] {
		v, ok := agentTotal[int64(*x)]
		if ok != (reopened[1][i] != nil) || (ok && int64(*reopened[1][i]) != v) {
			t.Errorf("reopened at %s: second %d drawn %v, the agent's %d (has: %v)", paused, int64(*x), reopened[1][i], v, ok)
			break
		}
	}
	if len(reopened[0]) != 60 || len(agentTotal) == 0 {
		t.Errorf("reopened at %s: %d seconds drawn, the agent has %d", paused, len(reopened[0]), len(agentTotal))
	}
	// The first reads were asked by boot.js before the app had loaded, and
	// the app took them: each panel's description and window asked once.
	var asked struct {
		Panels int            `json:"panels"`
		Taken  int            `json:"taken"`
		Paths  map[string]int `json:"paths"`
	}
	b.run(chromedp.Evaluate(`(() => { const paths = {};
		for (const e of performance.getEntriesByType("resource")) if (e.name.includes("/api/analytics/v1/datasets/")) { const p = new URL(e.name).pathname + new URL(e.name).search; paths[p] = (paths[p] || 0) + 1; }
		return { panels: sondeUI.sheet.panels.size, taken: window.sondeEarlyTaken, paths }; })()`, &asked))
	var data, descs int
	for p, n := range asked.Paths {
		if n != 1 {
			t.Errorf("reopened at %s: %s asked %d times", paused, p, n)
		}
		if strings.Contains(p, "/data?") {
			data++
		} else {
			descs++
		}
	}
	if asked.Taken < 2*asked.Panels {
		t.Errorf("reopened at %s: the app took %d of boot.js's answers, for %d panels", paused, asked.Taken, asked.Panels)
	}
	if asked.Panels == 0 || data != asked.Panels || descs != asked.Panels {
		t.Errorf("reopened at %s: %d panels, %d data reads and %d descriptions asked: %v", paused, asked.Panels, data, descs, asked.Paths)
	}
	// Forward to now, then back: the paused window again.
	b.run(chromedp.Click("#t-now", chromedp.ByQuery))
	b.waitJS(`document.querySelector("#t-range").dataset.live === "true" && !location.hash.includes("end=")`)
	b.run(chromedp.Evaluate(`history.back()`, nil))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.live === "false" && document.querySelector("#t-range").dataset.to === "%d"`, to))

	// A day reads the minute tier, a week and a month the hour tier: the
	// chart's points are the agent's intervals at their starts.
	for _, c := range []struct{ button, tier string }{{"#t-1d", "minute"}, {"#t-1w", "hour"}, {"#t-1mo", "hour"}, {"#t-1h", "second"}} {
		// The window keeps its end: its last interval holds the last second.
		width := map[string]int64{"second": 1, "minute": 60, "hour": 3600}[c.tier]
		b.run(chromedp.Click(c.button, chromedp.ByQuery))
		b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.tier === %q && document.querySelector("#t-range").dataset.to === "%d" && sondeUI.sheet.panels.get(%q).view.u.data[0].length === sondeUI.sheet.xs.length`, c.tier, (to+width-1)/width*width, ops))
		f, tt := b.window()
		want := map[int64]int64{}
		for _, iv := range s.window(ops, f, tt, c.tier) {
			want[iv.Sample] = iv.Data.Value
		}
		var drawn [][]*float64
		b.run(chromedp.Evaluate(fmt.Sprintf(`sondeUI.sheet.panels.get(%q).view.series && [sondeUI.sheet.xs, sondeUI.sheet.panels.get(%q).view.series.total]`, ops, ops), &drawn))
		// Intervals that ended by the pause are final and equal; the one
		// still filling (a minute or an hour holding the present) only grows.
		n := 0
		for i, x := range drawn[0] {
			at := int64(*x)
			w, ok := want[at/width]
			if at%width != 0 || ok != (drawn[1][i] != nil) {
				t.Errorf("%s: the chart has %v at %d; the agent's %s %d has data: %v", c.button, drawn[1][i], at, c.tier, at/width, ok)
				break
			}
			if !ok {
				continue
			}
			v := int64(*drawn[1][i])
			if (at+width <= to && v != w) || v > w || v == 0 {
				t.Errorf("%s: the chart has %d at %d; the agent's %s %d is %d", c.button, v, at, c.tier, at/width, w)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: nothing drawn", c.button)
		}
	}
	// Dragging across a chart zooms every chart to the seconds it crossed.
	b.run(chromedp.Click("#t-1m", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.querySelector("#t-range").dataset.to === "%d" && sondeUI.sheet.xs.length === 60`, to))
	b.drag(opsSel+" .u-over", 0.5, 0.5, 0.9, 0.5)
	b.waitJS(`(() => { const d = document.querySelector("#t-range").dataset; return d.live === "false" && Number(d.span) >= 20 && Number(d.span) <= 28 &&
		sondeUI.sheet.xs.length === Number(d.span) && sondeUI.sheet.panels.get("syscall.latency").view.g.xs.length === Number(d.span); })()`)
	if f, tt := b.window(); f < from+25 || tt > to {
		t.Errorf("dragging over [0.5, 0.9] of the window [%d, %d) zoomed to [%d, %d)", from, to, f, tt)
	}
	b.run(chromedp.Click("#t-1m", chromedp.ByQuery), chromedp.Click("#t-now", chromedp.ByQuery))
	b.waitJS(`document.querySelector("#t-range").dataset.live === "true" && document.querySelector("#t-range").dataset.span === "60"`)

	// A rectangle by another breakdown: the dataset with it is made, under
	// the heat map; selecting on its own heat map gives the dd's events.
	b.drag(heat+" canvas.heatmap", 0.8, 0.02, 0.995, 0.9)
	b.run(chromedp.Click(heat+` .selection button[data-breakdown="execname"]`, chromedp.ByQuery))
	byExec := "syscall.latency[execname]"
	bySel := fmt.Sprintf(`section.panel[data-name=%q]`, byExec)
	b.waitJS(fmt.Sprintf(`!!document.querySelector(%q) && !!document.querySelector(%q)`, bySel, heat+` .selection table.bykey[data-dataset="syscall.latency[execname]"]`))
	b.waitJSFor(fmt.Sprintf(`Number(document.querySelector(%q).dataset.columns) >= 5`, bySel+" canvas.heatmap"), time.Minute)
	b.run(chromedp.Click("#t-pause", chromedp.ByQuery))
	b.waitJS(`document.querySelector("#t-range").dataset.live === "false"`)
	_, to = b.window()
	b.waitJS(`sondeUI.sheet.xs && sondeUI.sheet.xs[sondeUI.sheet.xs.length - 1] === ` + strconv.FormatInt(to-1, 10))
	b.drag(bySel+" canvas.heatmap", 0.9, 0.02, 0.995, 0.99)
	row := bySel + ` .selection table.bykey tr[data-key="` + name + `"] td.num`
	b.waitJS(fmt.Sprintf(`!!document.querySelector(%q)`, row))
	b.run(chromedp.Evaluate(`({...document.querySelector('`+bySel+` .selection').dataset})`, &sel))
	var events string
	b.run(chromedp.Text(row, &events, chromedp.ByQuery))
	if n := s.rectCount(byExec, sel, name); strconv.FormatInt(n, 10) != events || n == 0 {
		t.Errorf("the selection %v has %s events of %s; the agent's buckets add up to %d", sel, events, name, n)
	}
	b.shotOf(bySel, filepath.Join(shots, "heatmap-selection.png"))
	b.run(chromedp.Click("#theme", chromedp.ByQuery))
	b.waitJS(`document.documentElement.dataset.theme === "dark" && !!document.querySelector(".flame .frame")`)
	b.shot(filepath.Join(shots, "toolbar-dark.png"))

	// Where seconds are gone, the coarser tier: a whole minute the
	// datasets recorded, ten seconds past, its seconds pruned through the
	// API; an hour's window ending there reads no seconds in any panel,
	// and minutes that end in it, as the agent has them.
	m := (created.Unix()/60 + 2) * 60
	for time.Now().Unix() < m+10 {
		time.Sleep(time.Second)
	}
	if st, body := s.call("DELETE", "/datasets/data?granularity=second&endtime="+time.Unix(m, 0).UTC().Format(time.RFC3339), nil, nil); st != 204 && st != 200 {
		t.Fatalf("prune: %d %s", st, body)
	}
	if n := len(s.window(ops, m-60, m, "second")); n != 0 {
		t.Fatalf("the pruned minute still has %d seconds", n)
	}
	b.run(chromedp.Evaluate(fmt.Sprintf(`sondeUI.sheet.win.end = %d, sondeUI.sheet.win.show(3600), sondeUI.sheet.moved()`, m), nil))
	b.waitJS(`(() => { const d = document.querySelector("#t-range"); return d.dataset.tier === "minute" && d.dataset.span === "3600" && d.textContent.includes("finer data gone"); })()`)
	var minute []float64
	b.run(chromedp.Evaluate(fmt.Sprintf(`(() => { const p = sondeUI.sheet.panels.get(%q), i = sondeUI.sheet.xs.indexOf(%d); return [i, p.view.series.total[i]]; })()`, ops, m-60), &minute))
	agentMin := s.window(ops, m-60, m, "minute")
	if len(agentMin) != 1 || minute[0] < 0 || int64(minute[1]) != agentMin[0].Data.Value || agentMin[0].Data.Value == 0 {
		t.Errorf("the minute before %d: the chart has %v; the agent's minute tier %+v", m, minute, agentMin)
	}
}

// window is the time toolbar's window: [from, to) in seconds.
func (p *page) window() (int64, int64) {
	p.t.Helper()
	var r []string
	p.run(chromedp.Evaluate(`[document.querySelector("#t-range").dataset.from, document.querySelector("#t-range").dataset.to]`, &r))
	from, err1 := strconv.ParseInt(r[0], 10, 64)
	to, err2 := strconv.ParseInt(r[1], 10, 64)
	if err1 != nil || err2 != nil {
		p.t.Fatalf("the window is %q", r)
	}
	return from, to
}

// drag drags the mouse over an element from one point to another (as
// fractions of its width and height).
func (p *page) drag(sel string, x0, y0, x1, y1 float64) {
	p.t.Helper()
	var r []float64
	p.run(chromedp.Evaluate(`(() => { const e = document.querySelector(`+strconv.Quote(sel)+`); e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &r))
	at := func(fx, fy float64) (float64, float64) { return r[0] + fx*r[2], r[1] + fy*r[3] }
	ax, ay := at(x0, y0)
	bx, by := at(x1, y1)
	p.run(chromedp.MouseEvent(input.MouseMoved, ax, ay),
		chromedp.MouseEvent(input.MousePressed, ax, ay, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.MouseMoved, (ax+bx)/2, (ay+by)/2, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, bx, by, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseReleased, bx, by, chromedp.ButtonLeft, chromedp.ClickCount(1)))
}

// agentInterval is one interval of the agent's data, with buckets.
type agentInterval struct {
	Sample int64 `json:"sample"`
	Data   struct {
		Value int64 `json:"value"`
		Data  []struct {
			Key     string        `json:"key"`
			Value   int64         `json:"value"`
			Buckets []agentBucket `json:"buckets"`
		} `json:"data"`
		Buckets []agentBucket `json:"buckets"`
	} `json:"data"`
}

type agentBucket struct {
	Min   int64  `json:"min"`
	Max   *int64 `json:"max"`
	Count int64  `json:"count"`
}

// window reads a dataset's intervals of [from, to) (seconds) at a tier.
func (s *sonded) window(name string, from, to int64, tier string) []agentInterval {
	s.t.Helper()
	var d struct {
		Data json.RawMessage `json:"data"`
	}
	q := fmt.Sprintf("%s/data?start=%s&seconds=%d&granularity=%s", datasetPath(name), time.Unix(from, 0).UTC().Format(time.RFC3339), to-from, tier)
	if st, body := s.call("GET", q, nil, &d); st != 200 {
		s.t.Fatalf("data %s: %d %s", q, st, body)
	}
	// One interval is an object (null when it has no data), more a list.
	var out []agentInterval
	switch {
	case string(d.Data) == "null":
	case strings.HasPrefix(string(d.Data), "{"):
		var one agentInterval
		if err := json.Unmarshal(d.Data, &one); err != nil {
			s.t.Fatalf("data %s: %v", q, err)
		}
		out = append(out, one)
	default:
		if err := json.Unmarshal(d.Data, &out); err != nil {
			s.t.Fatalf("data %s: %v", q, err)
		}
	}
	return out
}

// rectCount adds the agent's bucket counts of a selected rectangle (its
// dataset attributes from, to, min, max): of the total, or of one key.
func (s *sonded) rectCount(name string, sel map[string]string, key string) int64 {
	s.t.Helper()
	num := func(k string) int64 {
		n, err := strconv.ParseInt(sel[k], 10, 64)
		if err != nil {
			s.t.Fatalf("selection %v: %s: %v", sel, k, err)
		}
		return n
	}
	from, to, lo := num("from"), num("to"), num("min")
	hi := int64(-1)
	if sel["max"] != "" {
		hi = num("max")
	}
	var n int64
	add := func(bs []agentBucket) {
		for _, b := range bs {
			if b.Min >= lo && (hi < 0 || b.Min < hi) {
				n += b.Count
			}
		}
	}
	for _, iv := range s.window(name, from, to, "second") {
		if key == "" {
			add(iv.Data.Buckets)
			continue
		}
		for _, k := range iv.Data.Data {
			if k.Key == key {
				add(k.Buckets)
			}
		}
	}
	return n
}

// readCSV waits for the one CSV download in dir and parses it.
func readCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		m, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
		if len(m) == 1 {
			f, err := os.Open(m[0])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err == nil && len(rows) > 1 {
				return rows
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no CSV downloaded in %s: %v", dir, m)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The UI in real Firefox (Debian's firefox-esr, headless), driven over
// WebDriver BiDi: a worksheet of a breakdown chart, a heat map and a
// flame graph renders with data, the time toolbar switches to an hour of
// seconds, and the screenshot is neither blank nor the "not built" page.
func TestUIFirefox(t *testing.T) {
	ff, err := exec.LookPath("firefox-esr")
	if err != nil {
		t.Fatalf("firefox-esr is needed (Debian's firefox-esr package; .ci/run installs it): %v", err)
	}
	shots := screenshotDir(t)
	s := startSonded(t, t.TempDir(), "--budget", "-1")
	name, dd := uniqueDD(t, "uiffdd")
	writeLoop(t, dd)
	sets := []string{"syscall.ops[execname]", "syscall.latency", "fault.ops[execname=" + name + "][stack]"}
	for _, d := range sets {
		if st, body := s.call("POST", "/datasets", map[string]string{"statistic": d}, nil); st != 201 && st != 200 {
			t.Fatalf("create %s: %d %s", d, st, body)
		}
	}
	var ws struct {
		Worksheet struct {
			ID string `json:"id"`
		} `json:"worksheet"`
	}
	if st, body := s.call("POST", "/worksheets", map[string]any{"name": "firefox", "datasets": sets}, &ws); st != 201 && st != 200 {
		t.Fatalf("worksheet: %d %s", st, body)
	}

	bidi := startFirefox(t, ff)
	bidi.navigate("http://" + s.addr + "/#/worksheet/" + ws.Worksheet.ID)
	bidi.waitJS(`document.body.dataset.ready === "1" && sondeUI.sheet.panels.size === 3`)
	bidi.waitJS(`(() => { const p = sondeUI.sheet.panels;
		return p.get("syscall.ops[execname]").view.u && p.get("syscall.ops[execname]").view.u.data[0].length === 60 &&
			!!document.querySelector('section.panel[data-name="syscall.ops[execname]"] .legend .entry[data-key="` + name + `"]') &&
			Number(document.querySelector("canvas.heatmap").dataset.cells) > 0 &&
			Number((document.querySelector(".flame") || {dataset: {}}).dataset.frames) > 2; })()`)
	bidi.eval(`document.querySelector("#t-1h").click()`)
	bidi.waitJS(`document.querySelector("#t-range").dataset.span === "3600" && sondeUI.sheet.xs.length === 3600 &&
		sondeUI.sheet.panels.get("syscall.ops[execname]").view.u.data[0].length === 3600`)
	bidi.eval(`document.querySelector("#t-1m").click()`)
	bidi.waitJS(`sondeUI.sheet.xs.length === 60`)
	png := bidi.screenshot()
	if err := os.WriteFile(filepath.Join(shots, "firefox.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := pngDecode(png)
	if err != nil {
		t.Fatalf("Firefox's screenshot: %v", err)
	}
	colours := map[[3]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	// A blank or error page has a handful of colours; charts, a heat map
	// and a flame graph have hundreds.
	if len(colours) < 200 {
		t.Errorf("Firefox's screenshot has %d colours: blank?", len(colours))
	}
}

// bidiClient is a WebDriver BiDi session with Firefox over its websocket.
type bidiClient struct {
	t    *testing.T
	conn net.Conn
	rd   io.Reader
	id   int
	ctx  string // the browsing context (the tab)
}

// startFirefox starts headless Firefox with its remote agent on a free
// port, and opens a BiDi session on its first tab.
func startFirefox(t *testing.T, ff string) *bidiClient {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	profile := t.TempDir()
	// No first-run pages, no updates, no telemetry: loopback only.
	prefs := `user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("app.update.disabledForTesting", true);
user_pref("browser.aboutwelcome.enabled", false);
`
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(ff, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", strconv.Itoa(port),
		"--width", "1280", "--height", "1000", "about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1", "HOME="+profile)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("firefox: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var conn net.Conn
	var br *bufio.Reader
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, br, _, err = ws.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d/session", port))
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Firefox's remote agent: %v\n%s", err, log.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Cleanup(func() { conn.Close() })
	c := &bidiClient{t: t, conn: conn, rd: conn}
	if br != nil {
		c.rd = io.MultiReader(br, conn)
	}
	c.call("session.new", map[string]any{"capabilities": map[string]any{}}, nil)
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	c.call("browsingContext.getTree", map[string]any{}, &tree)
	if len(tree.Contexts) == 0 {
		t.Fatal("Firefox has no tab")
	}
	c.ctx = tree.Contexts[0].Context
	c.call("browsingContext.setViewport", map[string]any{"context": c.ctx, "viewport": map[string]int{"width": 1280, "height": 1000}}, nil)
	return c
}

// call sends a command and waits for its answer (events are skipped).
func (c *bidiClient) call(method string, params any, out any) {
	c.t.Helper()
	c.id++
	msg, _ := json.Marshal(map[string]any{"id": c.id, "method": method, "params": params})
	_ = c.conn.SetDeadline(time.Now().Add(time.Minute))
	if err := wsutil.WriteClientText(c.conn, msg); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	for {
		data, err := wsutil.ReadServerText(struct {
			io.Reader
			io.Writer
		}{c.rd, c.conn})
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		var r struct {
			ID      int             `json:"id"`
			Type    string          `json:"type"`
			Result  json.RawMessage `json:"result"`
			Error   string          `json:"error"`
			Message string          `json:"message"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		if r.ID != c.id {
			continue
		}
		if r.Type == "error" {
			c.t.Fatalf("%s: %s: %s", method, r.Error, r.Message)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				c.t.Fatalf("%s: %v: %s", method, err, r.Result)
			}
		}
		return
	}
}

func (c *bidiClient) navigate(url string) {
	c.t.Helper()
	c.call("browsingContext.navigate", map[string]any{"context": c.ctx, "url": url, "wait": "complete"}, nil)
}

// eval evaluates an expression in the page: its result as BiDi gives it.
func (c *bidiClient) eval(expr string) (string, any) {
	c.t.Helper()
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Type  string `json:"type"`
			Value any    `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	c.call("script.evaluate", map[string]any{"expression": expr, "target": map[string]string{"context": c.ctx}, "awaitPromise": true}, &r)
	if r.Type == "exception" {
		return "exception", r.ExceptionDetails.Text
	}
	return r.Result.Type, r.Result.Value
}

// waitJS waits (a hang guard, no timing assertion) until expr is true.
func (c *bidiClient) waitJS(expr string) {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		typ, v := c.eval("!!(" + expr + ")")
		if typ == "boolean" && v == true {
			return
		}
		if time.Now().After(deadline) {
			_, page := c.eval(`document.getElementById("toast").textContent + "\n" + document.getElementById("main").innerText.slice(0, 2000)`)
			c.t.Fatalf("Firefox: waited a minute for %s (%s %v)\n%v", expr, typ, v, page)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *bidiClient) screenshot() []byte {
	c.t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	c.call("browsingContext.captureScreenshot", map[string]any{"context": c.ctx, "origin": "document"}, &r)
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		c.t.Fatalf("screenshot: %v", err)
	}
	return b
}

func pngDecode(b []byte) (image.Image, error) {
	return png.Decode(bytes.NewReader(b))
}
