package cli_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/alert"
	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
	"github.com/sonde-trace/sonde/internal/store"
)

// alertAgent serves the API and the alert service over a fake backend and
// a real store's meta documents.
func alertAgent(t *testing.T) (*alert.Engine, *apitest.Fake, string) {
	t.Helper()
	f := apitest.New()
	db, err := store.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e, err := alert.New(alert.Config{Meta: db, Datasets: f, Retries: -1, Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	srv := httptest.NewUnstartedServer(api.New(f, &api.Options{Now: f.Now}).Mount(map[string]http.Handler{alert.Prefix: e.Handler()}))
	srv.Config.ConnContext = api.ConnContext(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	return e, f, srv.URL
}

func TestAlertsCommands(t *testing.T) {
	e, f, url := alertAgent(t)
	if _, err := f.Create("syscall.ops[execname]", analytics.Archived); err != nil {
		t.Fatal(err)
	}
	th, err := e.CreateThreshold(alert.Threshold{Statname: "syscall.ops[execname]", Limit: 100, Type: alert.Normal, Days: alert.AllDays,
		Minclear: 1, PerKey: true, WindowStart: alert.None, WindowEnd: alert.None})
	if err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer hook.Close()
	a, err := e.CreateAction(alert.Action{ThresholdID: th.ID, Items: []alert.Item{{Handler: alert.Webhook, URL: hook.URL, Post: true}}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	e.Observe("syscall.ops[execname]", analytics.Second{Time: t0, Samples: 1, Rows: []analytics.Row{{Key: []string{"dd"}, Value: 500}}})
	e.Wait()

	out, errs, code := run(t, url, "alerts", "thresholds")
	if code != 0 || !strings.Contains(out, th.ID) || !strings.Contains(out, "syscall.ops[execname]") || !strings.Contains(out, "dd:firing") {
		t.Errorf("alerts thresholds: %d %s %s", code, out, errs)
	}
	out, errs, code = run(t, url, "alerts", "events", "-threshold", th.ID)
	if code != 0 || !strings.Contains(out, "alert-000001") || !strings.Contains(out, "2025-03-03T12:00:01Z") ||
		!strings.Contains(out, "webhook post delivered") || !strings.Contains(out, " dd ") {
		t.Errorf("alerts events: %d %s %s", code, out, errs)
	}
	out, errs, code = run(t, url, "alerts", "actions")
	if code != 0 || !strings.Contains(out, a.Items[0].ID) || !strings.Contains(out, hook.URL) {
		t.Errorf("alerts actions: %d %s %s", code, out, errs)
	}
	out, errs, code = run(t, url, "alerts", "silence", th.ID, "600")
	if code != 0 || !strings.Contains(out, "silenced until") {
		t.Errorf("alerts silence: %d %s %s", code, out, errs)
	}
	out, errs, code = run(t, url, "alerts", "test", a.ID, a.Items[0].ID)
	if code != 0 || !strings.Contains(out, "webhook test delivered") {
		t.Errorf("alerts test: %d %s %s", code, out, errs)
	}
	hook.Close()
	_, errs, code = run(t, url, "alerts", "test", a.ID, a.Items[0].ID)
	if code != 1 || !strings.Contains(errs, "not delivered") {
		t.Errorf("alerts test of a closed hook: %d %s", code, errs)
	}
	_, errs, code = run(t, url, "alerts", "silence", "nope", "10")
	if code != 1 || !strings.Contains(errs, `no threshold "nope"`) {
		t.Errorf("alerts silence nope: %d %s", code, errs)
	}
	_, errs, code = run(t, url, "alerts", "bogus")
	if code != 1 || !strings.Contains(errs, "unknown subcommand") {
		t.Errorf("alerts bogus: %d %s", code, errs)
	}
}

// A sonded whose threshold list lacks the alerts: each threshold's own
// answer is asked for them.
func TestAlertsThresholdsOlderAgent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case alert.Prefix + "/thresholds":
			w.Write([]byte(`{"thresholds": [{"uuid": "th-1", "statname": "syscall.ops[execname]", "limit": 100, "type": "normal"}]}`))
		case alert.Prefix + "/thresholds/th-1":
			w.Write([]byte(`{"threshold": {"uuid": "th-1", "statname": "syscall.ops[execname]", "limit": 100, "type": "normal",
				"alerts": [{"key": ["dd"], "state": "pending"}]}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	out, errs, code := run(t, srv.URL, "alerts", "thresholds")
	if code != 0 || !strings.Contains(out, "th-1") || !strings.Contains(out, "dd:pending") {
		t.Errorf("alerts thresholds: %d %s %s", code, out, errs)
	}
}
