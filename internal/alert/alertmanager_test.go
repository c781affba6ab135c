package alert

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// amStub answers /api/v2/status and records the alerts POSTed to
// /api/v2/alerts (the real Alertmanager is in test/alerts_am_test.go).
type amStub struct {
	mu   sync.Mutex
	got  []amAlert
	post chan struct{}
}

func newAMStub(t *testing.T) (*amStub, *httptest.Server) {
	s := &amStub{post: make(chan struct{}, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v2/status" && r.Method == http.MethodGet:
			w.Write([]byte(`{"cluster":{"status":"disabled"}}`))
		case r.URL.Path == "/api/v2/alerts" && r.Method == http.MethodPost:
			var as []amAlert
			if err := json.NewDecoder(r.Body).Decode(&as); err != nil || len(as) != 1 {
				t.Errorf("alerts body: %v %v", err, as)
			}
			s.mu.Lock()
			s.got = append(s.got, as...)
			s.mu.Unlock()
			s.post <- struct{}{}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *amStub) list() []amAlert {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]amAlert(nil), s.got...)
}

// A posted alert goes to Alertmanager with startsAt, labels, annotations
// and a generatorURL, ending four resend intervals ahead; it is sent
// again every resend interval of the records' clock while it lasts, and
// once more with endsAt at the clear. A resend delivered is not recorded.
func TestAlertmanager(t *testing.T) {
	r := newRig(t, Config{Retries: -1, ResendTick: 5 * time.Millisecond, Link: "http://agent:7390"}, "fake.ops[k]")
	am, srv := newAMStub(t)
	r.clk.set(sec(1))
	th := r.threshold(t, Threshold{Statname: "fake.ops[k]", Limit: 100, Minpost: 1, Minclear: 1, PerKey: true})
	if _, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{
		{Handler: Alertmanager, URL: srv.URL + "/", Resend: 30, Labels: map[string]string{"team": "ops"}, Post: true, Clear: true}}}); err != nil {
		t.Fatal(err)
	}
	r.keyed("fake.ops[k]", sec(0), map[string]int64{"dd": 500})
	<-am.post
	a := am.list()[0]
	if !a.StartsAt.Equal(sec(1)) || !a.EndsAt.Equal(sec(1).Add(120*time.Second)) {
		t.Errorf("startsAt %v endsAt %v, want %v and 2 minutes later", a.StartsAt, a.EndsAt, sec(1))
	}
	want := map[string]string{"alertname": "SondeThreshold", "statname": "fake.ops[k]", "threshold": th.ID, "key": "dd",
		"instance": "testhost", "severity": "warning", "job": "sonded", "team": "ops"}
	if len(a.Labels) != len(want) {
		t.Errorf("labels %v, want %v", a.Labels, want)
	}
	for k, v := range want {
		if a.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, a.Labels[k], v)
		}
	}
	if a.Annotations["value"] != "500" || a.Annotations["limit"] != "100" || !strings.HasPrefix(a.Annotations["summary"], "ALERT fake.ops[k] [dd] = 500 > 100") ||
		a.GeneratorURL != "http://agent:7390/api/analytics/v1/datasets/fake.ops%5Bk%5D" {
		t.Errorf("annotations %v generatorURL %q", a.Annotations, a.GeneratorURL)
	}
	// Not yet due: nothing. Due: sent again, the same alert ending later.
	time.Sleep(50 * time.Millisecond)
	if n := len(am.list()); n != 1 {
		t.Fatalf("%d alerts sent before the resend was due", n)
	}
	r.clk.set(sec(31))
	<-am.post
	if a := am.list()[1]; !a.StartsAt.Equal(sec(1)) || !a.EndsAt.Equal(sec(31).Add(120*time.Second)) || a.Labels["key"] != "dd" {
		t.Errorf("resent %+v", a)
	}
	r.keyed("fake.ops[k]", sec(1), map[string]int64{"dd": 5})
	r.e.Wait()
	got := am.list()
	last := got[len(got)-1]
	if !last.EndsAt.Equal(sec(2)) || !last.StartsAt.Equal(sec(1)) {
		t.Errorf("clear sent %+v, want endsAt %v", last, sec(2))
	}
	// Cleared: no more resends.
	r.clk.set(sec(200))
	time.Sleep(50 * time.Millisecond)
	r.e.Wait()
	if n := len(am.list()); n != len(got) {
		t.Errorf("%d alerts sent after the clear", n-len(got))
	}
	ev := r.e.Events()[0]
	if len(ev.Attempts) != 2 || ev.Attempts[0].What != "post" || ev.Attempts[1].What != "clear" {
		t.Errorf("attempts %+v: want the post and the clear (resends delivered are not recorded)", ev.Attempts)
	}
}

// Bad alertmanager items are the caller's errors: a URL that is not
// one, a negative resend, a label Prometheus would refuse, an
// Alertmanager that is not there.
func TestAlertmanagerBadConfiguration(t *testing.T) {
	r := newRig(t, Config{CheckTimeout: time.Second}, "fake.ops")
	_, srv := newAMStub(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 1})
	a, err := r.e.CreateAction(Action{ThresholdID: th.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		it   Item
		want string
	}{
		{Item{Handler: Alertmanager, URL: "127.0.0.1:9093"}, "want http(s)://HOST:PORT"},
		{Item{Handler: Alertmanager, URL: srv.URL, Resend: -1}, "not negative"},
		{Item{Handler: Alertmanager, URL: srv.URL, Labels: map[string]string{"bad-label": "x"}}, "label \"bad-label\""},
		{Item{Handler: Alertmanager, URL: closed.URL}, "is unreachable"},
		{Item{Handler: Alertmanager, URL: srv.URL + "/nothere"}, "404"},
	} {
		_, err := r.e.AddItem(a.ID, c.it)
		if err == nil || status(err) != http.StatusBadRequest || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v (%d), want 400 with %q", c.it, err, status(err), c.want)
		}
	}
	it, err := r.e.AddItem(a.ID, Item{Handler: Alertmanager, URL: srv.URL})
	if err != nil || it.Resend != DefaultResend {
		t.Errorf("a good item: %+v %v", it, err)
	}
}

// An Alertmanager that hangs delays neither the other items nor the
// resender: each attempt, the post's and a resend's, fails at its
// timeout, recorded.
func TestAlertmanagerHangs(t *testing.T) {
	r := newRig(t, Config{Retries: -1, Timeout: 100 * time.Millisecond, ResendTick: 5 * time.Millisecond}, "fake.ops")
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/api/v2/status" {
			return
		}
		select {
		case <-release:
		case <-req.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	h, srv := newHook(t)
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0})
	if _, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Alertmanager, URL: hang.URL, Resend: 1},
		{Handler: Webhook, URL: srv.URL}}}); err != nil {
		t.Fatal(err)
	}
	r.second("fake.ops", sec(0), 500)
	if n := <-h.got; n.What != "post" { // delivered while the other hangs
		t.Fatalf("notice %+v", n)
	}
	r.clk.set(sec(10)) // resends due
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ev := r.e.Events()[0]
		resends := 0
		for _, a := range ev.Attempts {
			if a.What == "resend" && !a.Delivered && strings.Contains(a.Error, "deadline exceeded") {
				resends++
			}
		}
		if resends >= 1 {
			break
		}
	}
	ev := r.e.Events()[0]
	var post, resend int
	for _, a := range ev.Attempts {
		switch {
		case a.Handler == Alertmanager && a.What == "post" && !a.Delivered:
			post++
		case a.Handler == Alertmanager && a.What == "resend" && !a.Delivered:
			resend++
		}
	}
	if post != 1 || resend == 0 {
		t.Errorf("attempts %+v: want the post and a resend failed at their timeout", ev.Attempts)
	}
}

// After a restart, an alert still posted is sent to Alertmanager again at
// once (its endsAt would otherwise pass), and resolved when it clears; a
// threshold deleted resolves its posted alerts.
func TestAlertmanagerAfterRestart(t *testing.T) {
	r := newRig(t, Config{Retries: -1}, "fake.ops")
	am, srv := newAMStub(t)
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 0, Minclear: 1})
	if _, err := r.e.CreateAction(Action{ThresholdID: th.ID, Items: []Item{{Handler: Alertmanager, URL: srv.URL, Resend: 60, Post: true, Clear: true}}}); err != nil {
		t.Fatal(err)
	}
	r.clk.set(sec(1))
	r.second("fake.ops", sec(0), 500)
	<-am.post
	r.e.Close()
	r.clk.set(sec(30))
	e2, err := New(Config{Meta: r.m, Datasets: r.ds, Now: r.clk.Now, ResendTick: 5 * time.Millisecond, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	<-am.post
	if a := am.list()[1]; !a.StartsAt.Equal(sec(1)) || !a.EndsAt.Equal(sec(30).Add(240*time.Second)) {
		t.Errorf("resent after the restart: %+v", a)
	}
	if err := e2.DeleteThreshold(th.ID); err != nil {
		t.Fatal(err)
	}
	<-am.post
	if a := am.list()[2]; !a.EndsAt.Equal(sec(30)) {
		t.Errorf("the deleted threshold's alert ends at %v, want %v", a.EndsAt, sec(30))
	}
}
