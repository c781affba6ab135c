package alert

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func (r *rig) do(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, Prefix+path, strings.NewReader(body))
	w := httptest.NewRecorder()
	r.e.Handler().ServeHTTP(w, req)
	var out map[string]any
	if w.Body.Len() > 0 {
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, w.Body)
		}
	}
	return w.Code, out
}

// POST with the statistic and limit only takes the appliance's defaults;
// GET, PUT, DELETE address it by uuid.
func TestHTTPThresholds(t *testing.T) {
	r := newRig(t, Config{}, "syscall.ops[execname=dd]")
	code, out := r.do(t, "POST", "/thresholds", `{"statname": "syscall.ops[execname=dd]", "limit": 1000}`)
	if code != http.StatusCreated {
		t.Fatalf("POST: %d %v", code, out)
	}
	th := out["threshold"].(map[string]any)
	for k, want := range map[string]any{"type": "normal", "minpost": 300.0, "minclear": 300.0, "frequency": 300.0,
		"days": "all", "window_start": "none", "window_end": "none", "limit": 1000.0, "dataset_state": "archived"} {
		if th[k] != want {
			t.Errorf("%s = %v, want %v", k, th[k], want)
		}
	}
	id := th["uuid"].(string)
	if code, out = r.do(t, "PUT", "/thresholds/"+id, `{"minpost": 5, "window_start": "09:00", "window_end": "17:30"}`); code != http.StatusAccepted {
		t.Fatalf("PUT: %d %v", code, out)
	}
	if th = out["threshold"].(map[string]any); th["minpost"] != 5.0 || th["limit"] != 1000.0 || th["window_end"] != "17:30" {
		t.Errorf("after PUT: %v", th)
	}
	if code, out = r.do(t, "GET", "/thresholds", ""); code != 200 || len(out["thresholds"].([]any)) != 1 {
		t.Errorf("GET list: %d %v", code, out)
	}
	if code, out = r.do(t, "POST", "/thresholds/"+id+"/silence", `{"seconds": 600}`); code != http.StatusAccepted || out["threshold"].(map[string]any)["silenced"] != true {
		t.Errorf("silence: %d %v", code, out)
	}
	if code, _ = r.do(t, "DELETE", "/thresholds/"+id, ""); code != http.StatusNoContent {
		t.Errorf("DELETE: %d", code)
	}
	if code, _ = r.do(t, "GET", "/thresholds/"+id, ""); code != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d", code)
	}
}

// Bad configuration gets a 4xx that says what is wrong.
func TestHTTPBadConfiguration(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops", "fake.lat")
	_, out := r.do(t, "POST", "/thresholds", `{"statname": "fake.ops", "limit": 1}`)
	id := out["threshold"].(map[string]any)["uuid"].(string)
	_, out = r.do(t, "POST", "/actions", `{"category": "thresholds", "thresholdid": "`+id+`"}`)
	action := out["action"].(map[string]any)["uuid"].(string)
	cases := []struct {
		method, path, body string
		code               int
		details            string
	}{
		{"POST", "/thresholds", `{"statname": "nosuch.ops", "limit": 1}`, 400, "no such dataset"},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": 1, "minpost": -5}`, 400, "not negative"},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": 1, "type": "upside"}`, 400, `type "upside"`},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": 1, "days": "mondays"}`, 400, "days"},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": 1, "window_start": "25:00"}`, 400, "window_start"},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": 1, "percentile": 99}`, 400, "needs a distribution"},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": 1, "perkey": true}`, 400, "no breakdown"},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": 1, "bogus": 1}`, 400, "unknown field"},
		{"POST", "/thresholds", `{"statname": "fake.ops", "limit": "x"}`, 400, "bad JSON"},
		{"PUT", "/thresholds/" + id, `{"minclear": -1}`, 400, "not negative"},
		{"POST", "/actions", `{"category": "thresholds", "thresholdid": "nope"}`, 400, "no such threshold"},
		{"POST", "/actions", `{"category": "faults", "thresholdid": "` + id + `"}`, 400, "category"},
		{"POST", "/actions/" + action, `{"handler": "pager"}`, 400, `handler "pager"`},
		{"POST", "/actions/" + action, `{"handler": "webhook", "url": "ftp://x"}`, 400, "url"},
		{"POST", "/actions/" + action, `{"handler": "email", "address": "not an address"}`, 400, "address"},
		{"POST", "/actions/" + action, `{"handler": "email", "address": "a@b.c", "auth_file": "/nonexistent"}`, 400, "auth file"},
		{"POST", "/actions/" + action, `{"handler": "syslog", "destination": "loghost"}`, 400, "destination"},
		{"POST", "/actions/" + action, `{"handler": "resume_dataset", "dataset": "nosuch.ops"}`, 400, "no such dataset"},
		{"POST", "/actions/" + action, `{"handler": "webhook", "url": "http://x", "timeout": -1}`, 400, "not negative"},
		{"POST", "/thresholds/" + id + "/silence", `{"seconds": -1}`, 400, "0 seconds or more"},
		{"GET", "/thresholds/nope", ``, 404, "no threshold"},
		{"GET", "/events/nope", ``, 404, "no event"},
		{"DELETE", "/events", ``, 405, "not allowed"},
	}
	for _, c := range cases {
		code, out := r.do(t, c.method, c.path, c.body)
		f, _ := out["fault"].(map[string]any)
		if code != c.code || f == nil || !strings.Contains(f["details"].(string), c.details) {
			t.Errorf("%s %s %s: %d %v; want %d with %q", c.method, c.path, c.body, code, out, c.code, c.details)
		}
	}
}

// Actions in the appliance's shape: an action of category thresholds,
// items added by POSTing to it, each changed, tested and deleted.
func TestHTTPActions(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	h, srv := newHook(t)
	_, out := r.do(t, "POST", "/thresholds", `{"statname": "fake.ops", "limit": 1}`)
	id := out["threshold"].(map[string]any)["uuid"].(string)
	code, out := r.do(t, "POST", "/actions", `{"category": "thresholds", "thresholdid": "`+id+`"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST action: %d %v", code, out)
	}
	action := out["action"].(map[string]any)["uuid"].(string)
	code, out = r.do(t, "POST", "/actions/"+action, `{"handler": "webhook", "url": "`+srv.URL+`"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST item: %d %v", code, out)
	}
	it := out["item"].(map[string]any)
	if it["post"] != true || it["clear"] != false {
		t.Errorf("an item given neither runs on post only: %v", it)
	}
	item := it["uuid"].(string)
	if code, out = r.do(t, "PUT", "/actions/"+action+"/"+item, `{"clear": true}`); code != http.StatusAccepted || out["item"].(map[string]any)["clear"] != true {
		t.Errorf("PUT item: %d %v", code, out)
	}
	code, out = r.do(t, "POST", "/actions/"+action+"/"+item+"/test", "")
	ev := out["event"].(map[string]any)
	if code != 200 || ev["state"] != "test" || len(ev["attempts"].([]any)) != 1 || len(h.list()) != 1 || h.list()[0].What != "test" {
		t.Errorf("test: %d %v, webhook got %v", code, out, h.list())
	}
	if code, out = r.do(t, "GET", "/events", ""); code != 200 || len(out["events"].([]any)) != 1 {
		t.Errorf("events: %d %v", code, out)
	}
	if code, out = r.do(t, "GET", "/actions/"+action, ""); code != 200 || len(out["action"].(map[string]any)["items"].([]any)) != 1 {
		t.Errorf("GET action: %d %v", code, out)
	}
	if code, _ = r.do(t, "DELETE", "/actions/"+action+"/"+item, ""); code != http.StatusNoContent {
		t.Errorf("DELETE item: %d", code)
	}
	if code, _ = r.do(t, "DELETE", "/thresholds/"+id, ""); code != http.StatusNoContent {
		t.Errorf("DELETE threshold: %d", code)
	}
	if code, out = r.do(t, "GET", "/actions", ""); code != 200 || len(out["actions"].([]any)) != 0 {
		t.Errorf("a threshold's actions go with it: %v", out)
	}
}

// GET /thresholds lists each threshold as GET /thresholds/UUID shows it,
// its alerts included: pending, firing, several keys, none.
func TestHTTPThresholdsWithAlerts(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops[k]", "fake.ops")
	perKey := r.threshold(t, Threshold{Statname: "fake.ops[k]", Limit: 100, Minpost: 1, Minclear: 5, PerKey: true})
	total := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 3, Minclear: 5})
	quiet := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 1000, Minpost: 1, Minclear: 5})
	r.keyed("fake.ops[k]", sec(0), map[string]int64{"a": 200, "b": 200, "c": 10})
	r.keyed("fake.ops[k]", sec(1), map[string]int64{"a": 200, "b": 200, "c": 10})
	r.second("fake.ops", sec(0), 500)
	r.second("fake.ops", sec(1), 500)
	if code, _ := r.do(t, "POST", "/thresholds/"+quiet.ID+"/silence", `{"seconds": 600}`); code != http.StatusAccepted {
		t.Fatalf("silence: %d", code)
	}
	code, out := r.do(t, "GET", "/thresholds", "")
	list, _ := out["thresholds"].([]any)
	if code != http.StatusOK || len(list) != 3 {
		t.Fatalf("GET list: %d %v", code, out)
	}
	states := map[string]string{}
	for _, x := range list {
		th := x.(map[string]any)
		id := th["uuid"].(string)
		_, one := r.do(t, "GET", "/thresholds/"+id, "")
		if !reflect.DeepEqual(th, one["threshold"]) {
			t.Errorf("in the list:\n %v\nalone:\n %v", th, one["threshold"])
		}
		var s []string
		as, ok := th["alerts"].([]any)
		if !ok {
			t.Errorf("%s: no alerts in the list: %v", id, th)
		}
		for _, a := range as {
			a := a.(map[string]any)
			s = append(s, fmt.Sprintf("%v %v", a["key"], a["state"]))
		}
		states[id] = strings.Join(s, " ")
	}
	want := map[string]string{perKey.ID: "[a] firing [b] firing", total.ID: "<nil> pending", quiet.ID: ""}
	if !reflect.DeepEqual(states, want) {
		t.Errorf("alerts in the list %v, want %v", states, want)
	}
}
