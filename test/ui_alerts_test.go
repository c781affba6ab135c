package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The agent's alerts in the web UI: a threshold on the syscalls of a
// uniquely named dd, with a webhook action, is listed in the alerts view
// (reached from the keyboard); the dd's writes make it fire, and the view
// shows the threshold firing and the alert event the agent has, its value
// and its action's delivery (a disclosure opened from the keyboard); the
// dd stopped, the event shows cleared. Screenshots in both themes go to
// $SONDE_UI_SCREENSHOTS (a temporary directory when unset).
func TestUIAlerts(t *testing.T) {
	shots := screenshotDir(t)
	s := startSonded(t, t.TempDir(), "--budget", "-1", "--alert-backoff", "100ms", "--alert-retries", "1")
	name, dd := uniqueDD(t, "uialdd")
	watched := "syscall.ops[execname=" + name + "]"
	s.create(watched)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer hook.Close()
	thID, actID := s.thresholdAction(t, map[string]any{"statname": watched, "limit": 1000, "type": "normal",
		"minpost": 2, "minclear": 2, "frequency": 0, "days": "all", "window_start": "none", "window_end": "none"})
	if st, body := s.alertCall("POST", "/actions/"+actID, map[string]any{"handler": "webhook", "url": hook.URL, "post": true, "clear": true}, nil); st != 201 {
		t.Fatalf("webhook item: %d %s", st, body)
	}

	ctx := browser(t)
	b := &page{t: t, ctx: ctx}
	b.run(chromedp.Navigate("http://" + s.addr + "/#/datasets"))
	b.waitJS(`document.body.dataset.ready === "1"`)
	// The view from the keyboard: the navigation's link, then Enter.
	b.run(chromedp.Focus("#nav-alerts", chromedp.ByQuery), chromedp.KeyEvent("\r"))
	row := fmt.Sprintf(`table.thresholds tr[data-id=%q]`, thID)
	b.waitJS(fmt.Sprintf(`document.body.dataset.view === "alerts" && (document.querySelector(%q) || {}).dataset?.statname === %q && document.querySelector(%q).dataset.state === "inactive"`, row, watched, row))

	// Over the limit: the threshold fires, and its event is listed as the agent has it.
	stop := ddLoop(t, dd)
	ev := s.waitEvent("posted", func(e alertEvent) bool { return e.State == "posted" })
	evRow := fmt.Sprintf(`table.alert-events tr[data-event=%q]`, ev.ID)
	b.waitJSFor(fmt.Sprintf(`!!document.querySelector(%q) && document.querySelector(%q).dataset.threshold === %q && document.querySelector(%q).dataset.state !== "inactive"`, evRow, evRow, thID, row), time.Minute)
	var shown string
	b.run(chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).dataset.value`, evRow+" td[data-value]"), &shown))
	if v, err := strconv.ParseFloat(shown, 64); err != nil || v != ev.Value || v <= 1000 {
		t.Errorf("the event %s shows value %q; the agent's is %v (over the limit of 1000)", ev.ID, shown, ev.Value)
	}
	// Its action's attempts, from the keyboard: the disclosure opens on Enter.
	b.waitJSFor(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent === "1 delivered, 0 failed"`, evRow+" details summary"), time.Minute)
	b.run(chromedp.Focus(evRow+" details summary", chromedp.ByQuery), chromedp.KeyEvent("\r"))
	b.waitJS(fmt.Sprintf(`document.querySelector(%q).open && /post webhook #1: delivered/.test(document.querySelector(%q).textContent)`, evRow+" details", evRow+" details"))
	b.shot(filepath.Join(shots, "alerts.png"))
	b.run(chromedp.Click("#theme", chromedp.ByQuery))
	b.waitJS(fmt.Sprintf(`document.documentElement.dataset.theme === "dark" && !!document.querySelector(%q)`, evRow))
	b.shot(filepath.Join(shots, "alerts-dark.png"))
	b.run(chromedp.Click("#theme", chromedp.ByQuery))

	// Below the limit again: the event clears, in the view as on the agent.
	stop()
	cleared := s.waitEvent("cleared", func(e alertEvent) bool { return e.ID == ev.ID && e.State == "cleared" })
	b.waitJSFor(fmt.Sprintf(`(document.querySelector(%q) || {dataset: {}}).dataset.state === "cleared"`, evRow), time.Minute)
	var got []string
	b.run(chromedp.Evaluate(fmt.Sprintf(`[...document.querySelectorAll(%q)].map((r) => r.dataset.event + " " + r.dataset.state)`, "table.alert-events tr[data-event]"), &got))
	var agent struct {
		Events []alertEvent `json:"events"`
	}
	if st, body := s.alertCall("GET", "/events", nil, &agent); st != 200 {
		t.Fatalf("events: %d %s", st, body)
	}
	var want []string
	for i := len(agent.Events) - 1; i >= 0; i-- {
		if e := agent.Events[i]; e.State != "test" {
			want = append(want, e.ID+" "+e.State)
		}
	}
	if a, b := fmt.Sprint(got), fmt.Sprint(want); a != b {
		j, _ := json.Marshal(cleared)
		t.Errorf("the view lists the events %s; the agent has %s (the cleared one: %s)", a, b, j)
	}
}
