package alert

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// hook is a webhook receiver: it answers fail's statuses first, then 200.
type hook struct {
	mu      sync.Mutex
	fail    []int
	notices []Notice
	got     chan Notice
}

func newHook(t *testing.T, fail ...int) (*hook, *httptest.Server) {
	h := &hook{fail: fail, got: make(chan Notice, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n Notice
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		h.mu.Lock()
		st := http.StatusOK
		if len(h.fail) > 0 {
			st, h.fail = h.fail[0], h.fail[1:]
		}
		if st == http.StatusOK {
			h.notices = append(h.notices, n)
		}
		h.mu.Unlock()
		w.WriteHeader(st)
		if st == http.StatusOK {
			h.got <- n
		}
	}))
	t.Cleanup(srv.Close)
	return h, srv
}

func (h *hook) list() []Notice {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Notice(nil), h.notices...)
}

// The seed's pattern: post -> webhook and resume an expensive dataset;
// clear -> webhook and suspend it. A webhook answering 500 is retried, and
// every attempt is recorded with its error.
func TestActionsPostAndClear(t *testing.T) {
	r := newRig(t, Config{Retries: 3}, "fake.ops", "fake.ops[k]")
	h, srv := newHook(t, 500, 503)
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 1, Minclear: 1})
	_, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{
		{Handler: Webhook, URL: srv.URL + "/alert", Post: true, Clear: true},
		{Handler: ResumeDataset, Dataset: "fake.ops[k]", Post: true},
		{Handler: SuspendDataset, Dataset: "fake.ops[k]", Clear: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r.ds.SetState("fake.ops[k]", "suspended")
	r.second("fake.ops", sec(0), 500)
	r.e.Wait()
	r.second("fake.ops", sec(1), 5)
	r.e.Wait()
	if got := strings.Join(r.ds.states(), ", "); got != "fake.ops[k] suspended, fake.ops[k] archived, fake.ops[k] suspended" {
		t.Errorf("dataset states: %s", got)
	}
	ns := h.list()
	if len(ns) != 2 || ns[0].What != "post" || ns[0].Value != 500 || ns[0].Statname != "fake.ops" || ns[1].What != "clear" {
		t.Fatalf("webhook got %+v", ns)
	}
	ev := r.e.Events()[0]
	var hookTries []Attempt
	for _, a := range ev.Attempts {
		if a.Handler == Webhook {
			hookTries = append(hookTries, a)
		}
	}
	if len(hookTries) != 4 || hookTries[0].Delivered || !strings.Contains(hookTries[0].Error, "500") ||
		!strings.Contains(hookTries[1].Error, "503") || !hookTries[2].Delivered || hookTries[2].Attempt != 3 ||
		hookTries[3].What != "clear" || !hookTries[3].Delivered {
		t.Errorf("webhook attempts: %+v", hookTries)
	}
}

// A target that hangs holds up neither the tick nor the other actions: it
// fails at its timeout, recorded, while the other was delivered.
func TestActionHangsAlone(t *testing.T) {
	r := newRig(t, Config{Retries: -1, Timeout: 200 * time.Millisecond}, "fake.ops")
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}))
	defer hang.Close()
	defer close(release)
	h, srv := newHook(t)
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	if _, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Webhook, URL: hang.URL},
		{Handler: Webhook, URL: srv.URL}}}); err != nil {
		t.Fatal(err)
	}
	r.second("fake.ops", sec(0), 500) // returns: the actions run on their own
	<-entered
	n := <-h.got // delivered while the other hangs
	if n.What != "post" {
		t.Fatalf("notice %+v", n)
	}
	r.e.Wait() // the hanging one times out
	ev := r.e.Events()[0]
	failed := 0
	for _, a := range ev.Attempts {
		if !a.Delivered && strings.Contains(a.Error, "deadline exceeded") {
			failed++
		}
	}
	if len(ev.Attempts) != 2 || failed != 1 {
		t.Errorf("attempts %+v: want one delivered, one past its deadline", ev.Attempts)
	}
}

// A silenced threshold's alerts change state but run no action; the
// event says so.
func TestSilence(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	h, srv := newHook(t)
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Webhook, URL: srv.URL, Post: true, Clear: true}}})
	if _, err := r.e.Silence(th.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	r.second("fake.ops", sec(0), 500)
	r.e.Wait()
	ev := r.e.Events()[0]
	if len(h.list()) != 0 || len(ev.Silenced) != 1 || ev.Silenced[0] != "post" || len(ev.Attempts) != 0 {
		t.Fatalf("silenced: webhook got %d, event %+v", len(h.list()), ev)
	}
	r.clk.set(monday.Add(2 * time.Hour)) // the silence is over
	r.second("fake.ops", sec(1), 5)
	r.e.Wait()
	if ns := h.list(); len(ns) != 1 || ns[0].What != "clear" {
		t.Errorf("after the silence: %+v", ns)
	}
}

// Syslog: one RFC 5424 datagram on a local socket, with sonde's
// structured data.
func TestSyslog(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	path := filepath.Join(t.TempDir(), "log")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	a, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Syslog, Destination: path, Facility: "local3"}}})
	if err != nil {
		t.Fatal(err)
	}
	r.second("fake.ops", sec(0), 500)
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	msg := string(buf[:n])
	// local3 (19) * 8 + warning (4) = 156
	if !strings.HasPrefix(msg, "<156>1 "+sec(1).Format(time.RFC3339)+" testhost sonded ") ||
		!strings.Contains(msg, ` post [sonde@32473 event="alert-000001" threshold="`+th.ID+`" statname="fake.ops" what="post" value="500" limit="100"] ALERT fake.ops = 500 > 100 on testhost`) {
		t.Errorf("syslog message: %q", msg)
	}
	r.e.Wait()
	ev, err := r.e.Test(a.ID, a.Items[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	n, _ = conn.Read(buf)
	if ev.State != "test" || len(ev.Attempts) != 1 || !ev.Attempts[0].Delivered || !strings.HasPrefix(string(buf[:n]), "<157>1 ") {
		t.Errorf("test: event %+v, message %q", ev, buf[:n])
	}
}

// Syslog over TCP: RFC 6587's octet counting frames each message (its
// length in bytes, a space, the message), which the reader checks.
func TestSyslogTCP(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	msgs := make(chan string, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, _ := io.ReadAll(c)
			c.Close()
			msgs <- string(b)
		}
	}()
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	if _, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Syslog, Destination: "tcp://" + ln.Addr().String()}}}); err != nil {
		t.Fatal(err)
	}
	r.second("fake.ops", sec(0), 500)
	framed := <-msgs
	length, msg, ok := strings.Cut(framed, " ")
	if n, err := strconv.Atoi(length); !ok || err != nil || n != len(msg) {
		t.Fatalf("frame %q: the count is not the message's length (%d bytes)", framed, len(msg))
	}
	// daemon (3) * 8 + warning (4) = 28
	if !strings.HasPrefix(msg, "<28>1 ") || !strings.Contains(msg, `what="post" value="500" limit="100"`) {
		t.Errorf("message: %q", msg)
	}
	for _, bad := range []string{"tcp://127.0.0.1", "tcp://127.0.0.1:514/x", "smtp://x:25"} {
		if _, _, err := syslogTarget(bad); err == nil {
			t.Errorf("destination %q accepted", bad)
		}
	}
}

// A test of an action whose target is down says why it failed, after its
// retries.
func TestTestActionFails(t *testing.T) {
	r := newRig(t, Config{Retries: 2}, "fake.ops")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100})
	a, _ := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Webhook, URL: "http://" + addr + "/x"}}})
	ev, err := r.e.Test(a.ID, a.Items[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Attempts) != 3 || ev.Attempts[2].Delivered || !strings.Contains(ev.Attempts[2].Error, "connection refused") {
		t.Errorf("attempts %+v: want three refused", ev.Attempts)
	}
}

// Thresholds, actions and events survive a restart (the meta documents).
func TestPersistence(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	a, _ := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: SuspendDataset, Dataset: "fake.ops"}}})
	r.second("fake.ops", sec(0), 500)
	r.e.Wait()
	r.e.Close()
	e2, err := New(Config{Meta: r.m, Datasets: r.ds, Now: r.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	ths, as, evs := e2.Thresholds(), e2.Actions(), e2.Events()
	if len(ths) != 1 || ths[0].ID != th.ID || ths[0].Limit != 100 || len(as) != 1 || as[0].ID != a.ID ||
		len(as[0].Items) != 1 || len(evs) != 1 || len(evs[0].Attempts) != 1 || !evs[0].Attempts[0].Delivered {
		t.Fatalf("after a restart: %+v %+v %+v", ths, as, evs)
	}
	// The next event does not reuse the first's id.
	th2, _ := e2.CreateThreshold(Threshold{Statname: "fake.ops", Limit: 1, Type: Normal, Days: AllDays})
	e2.Observe("fake.ops", secondOf(sec(1), 5))
	evs = e2.Events()
	if len(evs) != 2 || evs[1].ID == evs[0].ID || evs[1].Threshold != th2.ID {
		t.Errorf("events %+v", evs)
	}
}

// The email's message is readable: subject with the statistic, value and
// limit; a body with them and the link.
func TestEmailMessage(t *testing.T) {
	s := emailSender{it: Item{Address: "ops@example.com", Subject: "[sonde]"}}
	msg := s.message("sonded@h", Notice{What: "post", Statname: "syscall.ops[execname=dd]", Value: 2500, Limit: 1000, Type: Normal,
		Time: sec(0), Host: "h", Link: "http://127.0.0.1:7390/api/analytics/v1/datasets/x", Threshold: "t1", Event: "alert-000001"})
	rd := bufio.NewReader(strings.NewReader(msg))
	var subj string
	for {
		line, err := rd.ReadString('\n')
		if strings.HasPrefix(line, "Subject: ") {
			subj = strings.TrimSpace(strings.TrimPrefix(line, "Subject: "))
		}
		if err == io.EOF || line == "\r\n" {
			break
		}
	}
	rest, _ := io.ReadAll(rd)
	if subj != "[sonde]: ALERT syscall.ops[execname=dd] = 2500 > 1000 on h" {
		t.Errorf("subject %q", subj)
	}
	for _, want := range []string{"value:      2500\r\n", "limit:      1000 (normal: alert above it)\r\n", "data:       http://127.0.0.1:7390/"} {
		if !strings.Contains(string(rest), want) {
			t.Errorf("body lacks %q:\n%s", want, rest)
		}
	}
}

// An alert posted before a restart is still posted after it: when the
// condition has gone for minclear, it clears and runs its clear actions
// (the seed's expensive dataset is suspended again), and a condition that
// persists does not post a second alert.
func TestPostedAlertSurvivesRestart(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops", "fake.ops[k]")
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0, Minclear: 2})
	r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: ResumeDataset, Dataset: "fake.ops[k]", Post: true},
		{Handler: SuspendDataset, Dataset: "fake.ops[k]", Clear: true}}})
	r.second("fake.ops", sec(0), 500)
	r.e.Wait()
	r.e.Close()
	e2, err := New(Config{Meta: r.m, Datasets: r.ds, Now: r.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	e2.Observe("fake.ops", secondOf(sec(10), 500))
	if evs := e2.Events(); len(evs) != 1 {
		t.Fatalf("a persisting condition posted again after the restart: %+v", evs)
	}
	e2.Observe("fake.ops", secondOf(sec(11), 5))
	e2.Observe("fake.ops", secondOf(sec(12), 5))
	e2.Wait()
	evs := e2.Events()
	if len(evs) != 1 || !evs[0].Cleared.Equal(sec(13)) {
		t.Fatalf("after the restart the alert did not clear: %+v", evs)
	}
	// fake.ops[k] was archived: the resume on post left it so; the clear
	// suspended it.
	if got := strings.Join(r.ds.states(), ", "); got != "fake.ops[k] suspended" {
		t.Errorf("dataset states: %q", got)
	}
}

// A threshold deleted, or changed to watch something else, ends its
// posted alerts: they are not left posted forever, nor taken up again by
// a restart.
func TestAlertsEndWithTheirThreshold(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops", "fake.lat")
	a := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	b := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	r.second("fake.ops", sec(0), 500)
	if _, err := r.e.UpdateThreshold(a.ID, func(t *Threshold) error { t.Statname = "fake.lat"; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := r.e.DeleteThreshold(b.ID); err != nil {
		t.Fatal(err)
	}
	evs := r.e.Events()
	if len(evs) != 2 || evs[0].State != "ended" || evs[1].State != "ended" || evs[0].Cleared.IsZero() {
		t.Fatalf("events %+v: want both ended", evs)
	}
	r.e.Close()
	e2, _ := New(Config{Meta: r.m, Datasets: r.ds, Now: r.clk.Now})
	defer e2.Close()
	if al, _ := e2.Alerts(a.ID); len(al) != 0 {
		t.Errorf("after a restart, alerts %+v", al)
	}
}

// Past maxEvents the oldest events are forgotten, in memory and in the
// store, but not an alert still posted: its clear is still to come.
func TestEventsBounded(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops", "fake.ops[k]")
	r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	r.second("fake.ops", sec(0), 500) // posted, never cleared
	r.threshold(t, Threshold{Statname: "fake.ops[k]", Limit: 100, Minpost: 0, PerKey: true})
	for i := 0; i < maxEvents+10; i++ {
		r.keyed("fake.ops[k]", sec(2*i), map[string]int64{"a": 500})
		r.keyed("fake.ops[k]", sec(2*i+1), map[string]int64{})
	}
	evs := r.e.Events()
	if len(evs) != maxEvents || evs[0].ID != "alert-000001" || evs[0].State != "posted" || evs[1].ID != "alert-000013" {
		t.Fatalf("%d events, first %s %s, second %s", len(evs), evs[0].ID, evs[0].State, evs[1].ID)
	}
	r.e.Wait() // the writer has written them
	if keys, _ := r.m.ListMeta(keyEvent); len(keys) != maxEvents {
		t.Errorf("%d events kept in the store, want %d", len(keys), maxEvents)
	}
}

// gated is meta documents whose writes wait for the gate: a slow disk.
type gated struct {
	*meta
	gate chan struct{}
}

func (g *gated) PutMeta(k string, v []byte) error {
	<-g.gate
	return g.meta.PutMeta(k, v)
}

// The second's evaluation never waits for the disk: events are written
// by the engine's writer, after it (hundreds of keys posting at once were
// hundreds of synchronous writes in the agent's tick).
func TestObserveDoesNotWaitForTheStore(t *testing.T) {
	g := &gated{meta: newMeta(), gate: make(chan struct{})}
	ds := newSets("fake.ops[k]")
	th := Threshold{Statname: "fake.ops[k]", Limit: 100, Type: Normal, Days: AllDays, PerKey: true}
	b, _ := json.Marshal(Threshold{ID: "t1", Statname: th.Statname, Limit: th.Limit, Type: Normal, Days: AllDays, PerKey: true,
		WindowStart: None, WindowEnd: None})
	g.meta.PutMeta(keyThreshold+"t1", b) // written before the gate matters
	e, err := New(Config{Meta: g, Datasets: ds, Now: (&clock{t: monday}).Now})
	if err != nil {
		t.Fatal(err)
	}
	s := analytics.Second{Time: sec(0), Samples: 1}
	for i := 0; i < 300; i++ {
		s.Rows = append(s.Rows, analytics.Row{Key: []string{fmt.Sprintf("p%03d", i)}, Value: 500})
	}
	done := make(chan struct{})
	go func() {
		e.Observe("fake.ops[k]", s)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang guard: the gate never opens before this
		close(g.gate)
		t.Fatal("Observe waited for the store's writes")
	}
	if n := len(e.Events()); n != 300 {
		t.Errorf("%d events, want 300", n)
	}
	close(g.gate)
	e.Close()
	if keys, _ := g.meta.ListMeta(keyEvent); len(keys) != 300 {
		t.Errorf("%d events written by Close, want 300", len(keys))
	}
}
