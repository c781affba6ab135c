package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// alertmanager is Debian's prometheus-alertmanager started by a test on
// loopback, with its own configuration and storage, clustering off.
type alertmanager struct {
	t    *testing.T
	base string
	log  *bytes.Buffer
}

// startAlertmanager starts one that sends every notification, resolved
// ones too, to hook, grouping each threshold's alerts.
func startAlertmanager(t *testing.T, hook string) *alertmanager {
	t.Helper()
	bin, err := exec.LookPath("prometheus-alertmanager")
	if err != nil {
		t.Fatalf("prometheus-alertmanager is needed (Debian's package, installed by .ci/run): %v", err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "alertmanager.yml")
	cfg := fmt.Sprintf(`route:
  receiver: hook
  group_by: [alertname, threshold, key]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: %q
        send_resolved: true
`, hook)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + freePort(t)
	cmd := exec.Command(bin, "--config.file="+conf, "--storage.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--cluster.listen-address=")
	am := &alertmanager{t: t, base: "http://" + addr, log: &bytes.Buffer{}}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			am.log.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("alertmanager's log:\n%s", am.log)
		}
	})
	for i := 0; i < 300; i++ { // until it is ready (a hang guard of 30 s)
		if resp, err := http.Get(am.base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return am
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("alertmanager did not start")
	return nil
}

// amAlert is an alert as Alertmanager's GET /api/v2/alerts shows it.
type amAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Status       struct {
		State string `json:"state"`
	} `json:"status"`
}

// alerts lists the alerts Alertmanager holds for a threshold.
func (am *alertmanager) alerts(threshold string) []amAlert {
	am.t.Helper()
	q := url.QueryEscape(fmt.Sprintf(`threshold="%s"`, threshold))
	resp, err := http.Get(am.base + "/api/v2/alerts?filter=" + q)
	if err != nil {
		am.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []amAlert
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		am.t.Fatal(err)
	}
	return out
}

// until polls f (a hang guard of 60 s, not a timing assertion).
func until(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		if f() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}

// The Alertmanager action against Debian's Alertmanager: a dd loop drives
// a threshold over; the alert appears in Alertmanager's API with sonde's
// labels, its startsAt the post, and its endsAt moved on by each resend;
// when the loop stops it clears, Alertmanager lists it no more and its
// receiver is told it resolved. An Alertmanager that is not there is a
// 400 when configured.
func TestAlertsAlertmanager(t *testing.T) {
	var mu sync.Mutex
	var notes []map[string]any
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n map[string]any
		json.NewDecoder(r.Body).Decode(&n)
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}))
	defer hook.Close()
	am := startAlertmanager(t, hook.URL+"/am")

	s := startSonded(t, t.TempDir(), "--alert-retries", "1", "--alert-backoff", "100ms")
	name, dd := uniqueDD(t, "amd")
	watched := "syscall.ops[execname=" + name + "]"
	s.create(watched)
	thID, actID := s.thresholdAction(t, map[string]any{"statname": watched, "limit": 1000, "minpost": 2, "minclear": 2,
		"frequency": 0})
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if st, body := s.alertCall("POST", "/actions/"+actID, map[string]any{"handler": "alertmanager", "url": gone.URL}, nil); st != 400 ||
		!strings.Contains(body, "unreachable") {
		t.Errorf("an Alertmanager that is not there: %d %s", st, body)
	}
	if st, body := s.alertCall("POST", "/actions/"+actID, map[string]any{"handler": "alertmanager", "url": am.base, "resend": 1,
		"labels": map[string]string{"team": "storage"}, "post": true, "clear": true}, nil); st != 201 {
		t.Fatalf("item: %d %s", st, body)
	}

	stopLoop := ddLoop(t, dd)
	posted := s.waitEvent("posted", func(e alertEvent) bool { return !e.Posted.IsZero() })

	var first amAlert
	until(t, "the alert in Alertmanager", func() bool {
		as := am.alerts(thID)
		if len(as) == 1 {
			first = as[0]
		}
		return len(as) == 1
	})
	want := map[string]string{"alertname": "SondeThreshold", "statname": watched, "threshold": thID, "team": "storage",
		"severity": "warning", "job": "sonded"}
	for k, v := range want {
		if first.Labels[k] != v {
			t.Errorf("label %s = %q, want %q (labels %v)", k, first.Labels[k], v, first.Labels)
		}
	}
	if first.Labels["instance"] == "" || first.Status.State != "active" || !first.StartsAt.Equal(posted.Posted) ||
		!strings.HasPrefix(first.Annotations["summary"], "ALERT "+watched+" = ") || first.Annotations["limit"] != "1000" ||
		first.Annotations["event"] != posted.ID || !strings.Contains(first.GeneratorURL, "/api/analytics/v1/datasets/") {
		t.Errorf("alert %+v; posted %v", first, posted.Posted)
	}
	// Re-sent while it lasts: its end moves on.
	until(t, "a resend", func() bool {
		as := am.alerts(thID)
		return len(as) == 1 && as[0].EndsAt.After(first.EndsAt) && as[0].Status.State == "active"
	})

	stopLoop()
	cleared := s.waitEvent("cleared", func(e alertEvent) bool { return e.ID == posted.ID && !e.Cleared.IsZero() })
	until(t, "the alert resolved in Alertmanager", func() bool { return len(am.alerts(thID)) == 0 })
	until(t, "the receiver told it resolved", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range notes {
			if n["status"] != "resolved" {
				continue
			}
			for _, a := range n["alerts"].([]any) {
				a := a.(map[string]any)
				l := a["labels"].(map[string]any)
				ends, _ := time.Parse(time.RFC3339Nano, a["endsAt"].(string))
				if l["threshold"] == thID && a["status"] == "resolved" && ends.Equal(cleared.Cleared) {
					return true
				}
			}
		}
		return false
	})
	ev := s.waitEvent("with its clear sent", func(e alertEvent) bool {
		for _, a := range e.Attempts {
			if e.ID == posted.ID && a.What == "clear" {
				return true
			}
		}
		return false
	})
	for _, a := range ev.Attempts {
		if !a.Delivered {
			t.Errorf("attempt failed: %+v", a)
		}
	}
	mu.Lock()
	firing := 0
	for _, n := range notes {
		if n["status"] == "firing" {
			firing++
		}
	}
	mu.Unlock()
	if firing == 0 {
		t.Errorf("the receiver was never told the alert fired: %v", notes)
	}
}
