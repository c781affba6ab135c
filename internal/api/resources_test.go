package api_test

import (
	"bytes"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

func TestIndexAndOpenAPI(t *testing.T) {
	srv := server(t, apitest.New(), true, nil)
	for _, p := range []string{api.Prefix, api.Prefix + "/"} {
		s := do(t, srv, "GET", p, "").json(t)["service"].(map[string]any)
		if s["name"] != "analytics" || s["href"] != api.Prefix || len(s["methods"].([]any)) < 10 {
			t.Fatalf("index: %v", s)
		}
	}
	r := do(t, srv, "GET", api.Prefix+"/openapi.yaml", "")
	want(t, r, http.StatusOK)
	doc, err := os.ReadFile("../../docs/api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if r.body != string(doc) || !strings.HasPrefix(r.body, "openapi: 3.") || r.header.Get("Content-Type") != "application/yaml" {
		t.Fatalf("openapi.yaml served is not docs/api/openapi.yaml (%d bytes, %s)", len(r.body), r.header.Get("Content-Type"))
	}
	// Every route of the index is documented.
	for _, m := range do(t, srv, "GET", api.Prefix, "").json(t)["service"].(map[string]any)["methods"].([]any) {
		path := m.(map[string]any)["path"].(string)
		path = strings.NewReplacer("<dataset>", "{name}", "<statistic>", "{name}", "<worksheet>", "{id}").Replace(path)
		if !bytes.Contains(doc, []byte("\n  "+path+":\n")) {
			t.Errorf("openapi.yaml does not document %s", path)
		}
	}
}

func TestStatistics(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	list := do(t, srv, "GET", api.Prefix+"/statistics", "").json(t)["statistics"].([]any)
	var names []string
	for _, s := range list {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if !slices.Equal(names, []string{"cpu.utilization", "io.latency", "syscall.ops"}) {
		t.Fatalf("statistics %v", names)
	}
	s := do(t, srv, "GET", api.Prefix+"/statistics/syscall.ops", "").json(t)["statistic"].(map[string]any)
	if s["kind"] != "counter" || s["href"] != api.Prefix+"/statistics/syscall.ops" || len(s["breakdowns"].([]any)) != 2 {
		t.Fatalf("statistic %v", s)
	}
	wantFault(t, do(t, srv, "GET", api.Prefix+"/statistics/nope.ops", ""), http.StatusNotFound, "ERR_NOT_FOUND", "nope.ops")
	r := do(t, srv, "POST", api.Prefix+"/statistics", `{"name": "http.uri", "description": "requests by URI", "source": "http*:::request-start { @[args[1]->hri_uri] = count(); }"}`)
	want(t, r, http.StatusCreated)
	if r.header.Get("Location") != api.Prefix+"/statistics/http.uri" || r.json(t)["statistic"].(map[string]any)["user"] != true {
		t.Fatalf("defined: %s", r.body)
	}
	wantFault(t, do(t, srv, "POST", api.Prefix+"/statistics", `{"name": "bad.d", "source": "syscall:::entry { x = 1; }"}`),
		http.StatusBadRequest, "ERR_INVALID_ARG", "syscall:::entry { x = 1; }\n^\nuser statistic:1:1: no aggregation")
	wantFault(t, do(t, srv, "POST", api.Prefix+"/statistics", `{"name": "x.y"}`), http.StatusBadRequest, "ERR_MISSING_ARG", "source")
}

func TestWorksheets(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	wp := api.Prefix + "/worksheets"
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops[execname]"}`), http.StatusCreated)
	r := do(t, srv, "POST", wp, `{"name": "dd", "datasets": ["syscall.ops[execname]"], "start": "2026-11-25T09:00:00Z", "seconds": 3600}`)
	want(t, r, http.StatusCreated)
	ws := r.json(t)["worksheet"].(map[string]any)
	href := wp + "/worksheet-001"
	if ws["id"] != "worksheet-001" || ws["href"] != href || ws["seconds"] != float64(3600) || ws["start"] != "2026-11-25T09:00:00Z" || r.header.Get("Location") != href {
		t.Fatalf("worksheet %v", ws)
	}
	r = do(t, srv, "PUT", href, `{"name": "dd and more", "notes": "look at write"}`)
	want(t, r, http.StatusAccepted)
	ws = do(t, srv, "GET", href, "").json(t)["worksheet"].(map[string]any)
	if ws["name"] != "dd and more" || ws["notes"] != "look at write" || len(ws["datasets"].([]any)) != 1 || ws["seconds"] != float64(3600) {
		t.Fatalf("modified %v", ws)
	}
	if l := do(t, srv, "GET", wp, "").json(t)["worksheets"].([]any); len(l) != 1 {
		t.Fatalf("list %v", l)
	}
	want(t, do(t, srv, "PUT", href+"/suspend", ""), http.StatusNoContent)
	if d, _ := f.Dataset("syscall.ops[execname]"); d.State != analytics.Suspended {
		t.Fatalf("suspend: %s", d.State)
	}
	want(t, do(t, srv, "PUT", href+"/resume", ""), http.StatusNoContent)
	if d, _ := f.Dataset("syscall.ops[execname]"); d.State != analytics.Archived {
		t.Fatalf("resume: %s", d.State)
	}
	wantFault(t, do(t, srv, "POST", wp, `{"datasets": []}`), http.StatusBadRequest, "ERR_MISSING_ARG", "name")
	wantFault(t, do(t, srv, "POST", wp, `{"name": " "}`), http.StatusBadRequest, "ERR_INVALID_ARG", "empty")
	wantFault(t, do(t, srv, "PUT", href, `{"seconds": -1}`), http.StatusBadRequest, "ERR_INVALID_ARG", "negative")
	wantFault(t, do(t, srv, "PUT", href, `{"id": "other"}`), http.StatusBadRequest, "ERR_UNKNOWN_ARG", "id")
	wantFault(t, do(t, srv, "PUT", href, `{"start": "yesterday"}`), http.StatusBadRequest, "ERR_INVALID_ARG", "request body")
	wantFault(t, do(t, srv, "PUT", wp+"/worksheet-999", `{"name": "x"}`), http.StatusNotFound, "ERR_NOT_FOUND", "worksheet-999")
	wantFault(t, do(t, srv, "PUT", wp+"/worksheet-999/suspend", ``), http.StatusNotFound, "ERR_NOT_FOUND", "worksheet-999")
	want(t, do(t, srv, "DELETE", href, ""), http.StatusNoContent)
	wantFault(t, do(t, srv, "GET", href, ""), http.StatusNotFound, "ERR_NOT_FOUND", "")
	wantFault(t, do(t, srv, "DELETE", href, ""), http.StatusNotFound, "ERR_NOT_FOUND", "")
}

func TestEvents(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	f.AddEvent(analytics.Event{Time: apitest.Epoch.Add(time.Second), Kind: "auto-suspended", Dataset: "io.latency", Message: "cost 12% over the budget"})
	all := do(t, srv, "GET", api.Prefix+"/events", "").json(t)["events"].([]any)
	if len(all) != 2 || all[1].(map[string]any)["kind"] != "auto-suspended" {
		t.Fatalf("events %v", all)
	}
	one := do(t, srv, "GET", api.Prefix+"/events?dataset=io.latency", "").json(t)["events"].([]any)
	since := do(t, srv, "GET", api.Prefix+"/events?since=20261125T10:00:01", "").json(t)["events"].([]any)
	if len(one) != 1 || len(since) != 1 || since[0].(map[string]any)["dataset"] != "io.latency" {
		t.Fatalf("filtered: %v %v", one, since)
	}
	wantFault(t, do(t, srv, "GET", api.Prefix+"/events?since=soon", ""), http.StatusBadRequest, "ERR_INVALID_ARG", "bad time")
}
