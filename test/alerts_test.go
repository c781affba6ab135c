package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// alertCall is a request to sonded's alert service.
func (s *sonded) alertCall(method, path string, body any, out any) (int, string) {
	s.t.Helper()
	base := s.base
	s.base = "http://" + s.addr + "/api/alert/v1"
	defer func() { s.base = base }()
	return s.call(method, path, body, out)
}

type alertEvent struct {
	ID            string    `json:"uuid"`
	State         string    `json:"state"`
	Posted        time.Time `json:"posted"`
	Cleared       time.Time `json:"cleared"`
	Value         float64   `json:"value"`
	Notifications int       `json:"notifications"`
	Attempts      []struct {
		Handler   string `json:"handler"`
		What      string `json:"what"`
		Attempt   int    `json:"attempt"`
		Delivered bool   `json:"delivered"`
		Error     string `json:"error"`
	} `json:"attempts"`
}

// waitEvent polls the alert events until ok says one is as wanted (a
// hang guard of 90 s, not a timing assertion).
// waitClears waits until event id has n attempts of its clear.
func (s *sonded) waitClears(what, id string, n int) alertEvent {
	s.t.Helper()
	return s.waitEvent(what, func(e alertEvent) bool {
		k := 0
		for _, a := range e.Attempts {
			if a.What == "clear" {
				k++
			}
		}
		return e.ID == id && k == n
	})
}

func (s *sonded) waitEvent(what string, ok func(alertEvent) bool) alertEvent {
	s.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var out struct{ Events []alertEvent }
		if st, body := s.alertCall("GET", "/events", nil, &out); st != 200 {
			s.t.Fatalf("events: %d %s", st, body)
		}
		for _, e := range out.Events {
			if e.State != "test" && ok(e) {
				return e
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("no alert event %s:\n%s", what, s.log)
	return alertEvent{}
}

// smtpServer starts Debian's aiosmtpd on a free port; its Debugging
// handler prints each message it receives, which mail() returns.
type smtpServer struct {
	addr string
	mu   sync.Mutex
	out  strings.Builder
}

func startSMTP(t *testing.T, args ...string) *smtpServer {
	t.Helper()
	if _, err := exec.Command("/usr/bin/python3", "-c", "import aiosmtpd").CombinedOutput(); err != nil {
		t.Fatalf("python3-aiosmtpd is not installed (.ci/run installs it): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command("/usr/bin/python3", append([]string{"-m", "aiosmtpd", "-n", "-l", addr}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	s := &smtpServer{addr: addr}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.mu.Lock()
			s.out.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	for i := 0; i < 100; i++ { // until it listens (a hang guard of 10 s)
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("aiosmtpd did not listen on %s:\n%s", addr, s.mail())
	return nil
}

func (s *smtpServer) mail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// notices receives the webhook's JSON.
type notices struct {
	mu  sync.Mutex
	got []map[string]any
}

func (n *notices) list() []map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]map[string]any(nil), n.got...)
}

// secondsOf reads a dataset's per-second totals from from to to.
func (s *sonded) secondsOf(name string, from, to time.Time) map[int64]int64 {
	s.t.Helper()
	var d dataResp
	n := int(to.Sub(from)/time.Second) + 1
	q := fmt.Sprintf("%s/data?start=%s&seconds=%d", datasetPath(name), url.QueryEscape(from.UTC().Format(time.RFC3339)), n)
	if st, body := s.call("GET", q, nil, &d); st != 200 {
		s.t.Fatalf("data: %d %s", st, body)
	}
	out := map[int64]int64{}
	for _, sec := range d.Data {
		out[sec.Sample] = sec.Data.Value
	}
	return out
}

// expect is the machine's rule applied to the data by hand: the end of
// the first second from from where the last n seconds were all over (or
// all not over) the limit.
func expect(vals map[int64]int64, from, to time.Time, limit int64, over bool, n int) time.Time {
	run := 0
	for t := from.Unix(); t <= to.Unix(); t++ {
		if (vals[t] > limit) == over {
			run++
		} else {
			run = 0
		}
		if run >= n {
			return time.Unix(t+1, 0).UTC()
		}
	}
	return time.Time{}
}

// Threshold alerts end to end with real peers: a loop of a uniquely named
// dd drives syscall.ops of its name over the limit and back. The alert
// posts after minpost (and not before: the post time is the one the data
// in the store gives), re-notifies at frequency, clears after minclear;
// the webhook, the mail (aiosmtpd) and the syslog socket receive it, a
// dataset is resumed on post and suspended on clear, and a webhook that
// hangs delays none of that.
// thresholdAction makes a threshold of the fields given and an action of
// the thresholds category for it, and returns their IDs.
func (s *sonded) thresholdAction(t *testing.T, threshold map[string]any) (thID, actID string) {
	t.Helper()
	var th struct {
		Threshold struct {
			ID string `json:"uuid"`
		} `json:"threshold"`
	}
	if st, body := s.alertCall("POST", "/thresholds", threshold, &th); st != 201 {
		t.Fatalf("threshold: %d %s", st, body)
	}
	var act struct {
		Action struct {
			ID string `json:"uuid"`
		} `json:"action"`
	}
	if st, body := s.alertCall("POST", "/actions", map[string]any{"category": "thresholds", "thresholdid": th.Threshold.ID}, &act); st != 201 {
		t.Fatalf("action: %d %s", st, body)
	}
	return th.Threshold.ID, act.Action.ID
}

// ddLoop runs dd's writes, 3,000 at a time (far over 1,000 a second),
// until the function it returns is called (again at the test's end: only
// the first call stops it).
func ddLoop(t *testing.T, dd string) func() {
	stop := make(chan struct{})
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			exec.Command(dd, "if=/dev/zero", "of=/dev/null", "bs=1", "count=3000", "status=none").Run()
			time.Sleep(50 * time.Millisecond)
		}
	}()
	stopLoop := sync.OnceFunc(func() { close(stop); <-loopDone })
	t.Cleanup(stopLoop)
	return stopLoop
}

func TestAlerts(t *testing.T) {
	dir := t.TempDir()
	s := startSonded(t, dir, "--budget", "-1", "--alert-backoff", "100ms", "--alert-retries", "1")
	name, dd := uniqueDD(t, "add")
	watched := "syscall.ops[execname=" + name + "]"
	drill := "syscall.ops[execname=" + name + "][name]"
	for _, spec := range []string{watched, drill} {
		s.create(spec)
	}
	if st, body := s.call("PUT", datasetPath(drill), map[string]bool{"suspended": true}, nil); st >= 300 {
		t.Fatalf("suspend: %d %s", st, body)
	}

	// The peers.
	var hooked notices
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n map[string]any
		json.NewDecoder(r.Body).Decode(&n)
		hooked.mu.Lock()
		hooked.got = append(hooked.got, n)
		hooked.mu.Unlock()
	}))
	defer hook.Close()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	smtp := startSMTP(t)
	sockPath := filepath.Join(t.TempDir(), "log")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sockPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	var syslogMu sync.Mutex
	var syslogs []string
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := sock.Read(buf)
			if err != nil {
				return
			}
			syslogMu.Lock()
			syslogs = append(syslogs, string(buf[:n]))
			syslogMu.Unlock()
		}
	}()

	// The threshold and its actions.
	const limit, minpost, minclear, frequency = 1000, 3, 2, 2
	thID, actID := s.thresholdAction(t, map[string]any{"statname": watched, "limit": limit, "type": "normal",
		"minpost": minpost, "minclear": minclear, "frequency": frequency, "days": "all", "window_start": "none", "window_end": "none"})
	zero := 0
	for _, it := range []map[string]any{
		{"handler": "webhook", "url": hang.URL, "post": true, "clear": true, "timeout": 2, "retries": zero},
		{"handler": "webhook", "url": hook.URL + "/alerts", "post": true, "clear": true},
		{"handler": "email", "address": "ops@example.com", "server": smtp.addr, "subject": "[sonde]", "post": true, "clear": true},
		{"handler": "syslog", "destination": sockPath, "post": true, "clear": true},
		{"handler": "resume_dataset", "dataset": drill, "post": true},
		{"handler": "suspend_dataset", "dataset": drill, "clear": true},
	} {
		if st, body := s.alertCall("POST", "/actions/"+actID, it, nil); st != 201 {
			t.Fatalf("item %v: %d %s", it, st, body)
		}
	}
	// Bad configuration: 4xx, and the agent runs on.
	for _, bad := range []struct {
		path string
		body map[string]any
		want string
	}{
		{"/thresholds", map[string]any{"statname": "syscall.ops[execname=nosuch" + name + "]", "limit": 1}, "no such dataset"},
		{"/thresholds", map[string]any{"statname": watched, "limit": 1, "minclear": -3}, "not negative"},
		{"/actions/" + actID, map[string]any{"handler": "pager"}, "handler"},
	} {
		if st, body := s.alertCall("POST", bad.path, bad.body, nil); st != 400 || !strings.Contains(body, bad.want) {
			t.Errorf("POST %s %v: %d %s", bad.path, bad.body, st, body)
		}
	}

	// The workload: a loop of dd's writes, far over 1000 a second.
	start := time.Now().Truncate(time.Second)
	stopLoop := ddLoop(t, dd)
	posted := s.waitEvent("posted", func(e alertEvent) bool { return !e.Posted.IsZero() })
	// While it persists, it re-notifies.
	s.waitEvent("re-notified", func(e alertEvent) bool { return e.ID == posted.ID && e.Notifications >= 2 })
	stopLoop()
	end := time.Now()
	cleared := s.waitEvent("cleared", func(e alertEvent) bool { return e.ID == posted.ID && !e.Cleared.IsZero() })

	// Post after minpost and clear after minclear, as the stored seconds
	// say.
	vals := s.secondsOf(watched, start.Add(-time.Second), cleared.Cleared)
	if want := expect(vals, start.Add(-time.Second), cleared.Cleared, limit, true, minpost); !cleared.Posted.Equal(want) {
		t.Errorf("posted at %v; the data (%v) says %v", cleared.Posted, vals, want)
	}
	if want := expect(vals, end.Truncate(time.Second).Add(-2*time.Second), cleared.Cleared, limit, false, minclear); !cleared.Cleared.Equal(want) {
		t.Errorf("cleared at %v; the data (%v) says %v", cleared.Cleared, vals, want)
	}

	// Every action's attempts: delivered, except the hanging webhook's,
	// failed at its timeout.
	final := s.waitClears("with its clear actions done", posted.ID, 5)
	hung := 0
	for _, a := range final.Attempts {
		switch {
		case a.Handler == "webhook" && !a.Delivered && strings.Contains(a.Error, "deadline exceeded"):
			hung++
		case !a.Delivered:
			t.Errorf("attempt failed: %+v", a)
		}
	}
	if hung < 3 { // post, at least one renotify, clear
		t.Errorf("the hanging webhook failed %d times, want one per notice: %+v", hung, final.Attempts)
	}
	ns := hooked.list()
	if len(ns) < 3 || ns[0]["what"] != "post" || ns[0]["statname"] != watched || ns[len(ns)-1]["what"] != "clear" {
		t.Errorf("webhook got %v", ns)
	}
	mail := smtp.mail()
	for _, want := range []string{"Subject: [sonde]: ALERT " + watched + " = ", "Subject: [sonde]: CLEARED " + watched,
		"limit:      1000 (normal: alert above it)", "/api/analytics/v1/datasets/"} {
		if !strings.Contains(mail, want) {
			t.Errorf("the mail lacks %q:\n%s", want, mail)
		}
	}
	syslogMu.Lock()
	logs := strings.Join(syslogs, "\n")
	syslogMu.Unlock()
	if !strings.Contains(logs, "<28>1 ") || !strings.Contains(logs, `statname="`+strings.ReplaceAll(watched, "]", `\]`)+`" what="post"`) ||
		!strings.Contains(logs, "<29>1 ") || !strings.Contains(logs, `what="clear"`) {
		t.Errorf("syslog got:\n%s", logs)
	}

	// The drill-down ran between post and clear (it counted dd's writes),
	// and is suspended again.
	var ds struct {
		Dataset struct {
			State string `json:"state"`
		} `json:"dataset"`
	}
	if st, body := s.call("GET", datasetPath(drill), nil, &ds); st != 200 || ds.Dataset.State != "suspended" {
		t.Errorf("after the clear, %s: %d %s", drill, st, body)
	}
	n := int(cleared.Cleared.Sub(cleared.Posted)/time.Second) + 1
	if got := s.sumKey(drill, cleared.Posted, n, "write"); got == 0 {
		t.Errorf("the drill-down resumed on post counted no write")
	}

	// The CLI lists the threshold and the event; the state survives a
	// restart.
	out, err := exec.Command(sonde, "analytics", "alerts", "events", "-url", "http://"+s.addr).CombinedOutput()
	if err != nil || !strings.Contains(string(out), posted.ID) || !strings.Contains(string(out), "email post delivered") {
		t.Errorf("sonde analytics alerts events: %v\n%s", err, out)
	}
	s.stop(syscall.SIGTERM)
	s = startSonded(t, dir)
	out, err = exec.Command(sonde, "analytics", "alerts", "thresholds", "-url", "http://"+s.addr).CombinedOutput()
	if err != nil || !strings.Contains(string(out), thID) || !strings.Contains(string(out), watched) {
		t.Errorf("after a restart, sonde analytics alerts thresholds: %v\n%s", err, out)
	}
	var evs struct{ Events []alertEvent }
	if st, body := s.alertCall("GET", "/events", nil, &evs); st != 200 || len(evs.Events) == 0 || evs.Events[0].ID != posted.ID {
		t.Errorf("after a restart, events: %d %s", st, body)
	}
}
