package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

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
	shots := os.Getenv("SONDE_UI_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
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
	_ = chromedp.Run(p.ctx, chromedp.Evaluate(`document.getElementById("toast").textContent + "\n" + document.getElementById("main").innerText.slice(0, 3000)`, &s))
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
