package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

const ds = api.Prefix + "/datasets"

func TestDatasetLifeCycle(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	r := do(t, srv, "POST", ds, `{"statistic": "syscall.ops[execname=dd][name]"}`)
	want(t, r, http.StatusCreated)
	d := r.json(t)["dataset"].(map[string]any)
	href := ds + "/" + url.PathEscape("syscall.ops[execname=dd][name]")
	if d["name"] != "syscall.ops[execname=dd][name]" || d["href"] != href || d["dataset"] != "dataset-000" ||
		d["state"] != "archived" || d["suspended"] != false || d["incore"] != float64(1300000) ||
		d["size"] != float64(16252928) || d["ondisk"] != float64(16252928) || d["grouping"] != "syscall" ||
		d["statistic"] != "syscall.ops" || d["kind"] != "counter" {
		t.Fatalf("created dataset: %v", d)
	}
	if e := d["explanation"]; e != "system calls per second broken down by name where execname is dd" {
		t.Errorf("explanation %q", e)
	}
	if loc := r.header.Get("Location"); loc != href {
		t.Errorf("Location %q, want %q", loc, href)
	}
	if r.header.Get("X-Zfssa-Analytics-Api") != "1.0" {
		t.Errorf("no X-Zfssa-Analytics-Api header")
	}
	want(t, do(t, srv, "POST", ds, `{"statistic": "io.latency", "state": "open"}`), http.StatusCreated)

	list := do(t, srv, "GET", ds, "").json(t)["datasets"].([]any)
	// Listed by name; ids stay what they were given at creation.
	if len(list) != 2 || list[0].(map[string]any)["name"] != "io.latency" || list[0].(map[string]any)["dataset"] != "dataset-001" ||
		list[1].(map[string]any)["dataset"] != "dataset-000" || list[0].(map[string]any)["state"] != "open" {
		t.Fatalf("list: %v", list)
	}

	r = do(t, srv, "PUT", href, `{"suspended": true}`)
	want(t, r, http.StatusAccepted)
	if d := r.json(t)["dataset"].(map[string]any); d["state"] != "suspended" || d["suspended"] != true {
		t.Fatalf("suspended: %v", d)
	}
	r = do(t, srv, "PUT", href, `{"suspended": false}`)
	if d := r.json(t)["dataset"].(map[string]any); d["state"] != "archived" || d["suspended"] != false {
		t.Fatalf("resumed: %v", d)
	}
	want(t, do(t, srv, "PUT", ds+"/io.latency", `{"suspended": false, "state": "open"}`), http.StatusAccepted)
	want(t, do(t, srv, "PUT", ds+"/io.latency/save", ""), http.StatusAccepted)
	want(t, do(t, srv, "DELETE", href, ""), http.StatusNoContent)
	wantFault(t, do(t, srv, "GET", href, ""), http.StatusNotFound, "ERR_NOT_FOUND", "no dataset")
	wantFault(t, do(t, srv, "DELETE", href, ""), http.StatusNotFound, "ERR_NOT_FOUND", "no dataset")

	wantCalls := []string{
		"Create(syscall.ops[execname=dd][name], archived)", "Create(io.latency, open)",
		"SetState(syscall.ops[execname=dd][name], suspended)", "SetState(syscall.ops[execname=dd][name], archived)",
		"SetState(io.latency, open)", "SetState(io.latency, archived)",
		"Destroy(syscall.ops[execname=dd][name])", "Destroy(syscall.ops[execname=dd][name])",
	}
	if !slices.Equal(f.Calls, wantCalls) {
		t.Fatalf("calls\n%s\nwant\n%s", strings.Join(f.Calls, "\n"), strings.Join(wantCalls, "\n"))
	}
}

// Names hold [ ] = " spaces and slashes: escaped, they address their
// dataset; brackets unescaped (as the appliance's hrefs have them) too.
func TestDatasetNameEscaping(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	for _, name := range []string{
		`syscall.ops[execname="my prog=1"][name]`,
		`syscall.ops[execname=a/b c][name]`,
		`syscall.ops[execname=100%]`,
		`syscall.ops[execname=a?b#c]`,
	} {
		r := do(t, srv, "POST", ds, `{"statistic": `+jsonString(name)+`}`)
		want(t, r, http.StatusCreated)
		href := r.json(t)["dataset"].(map[string]any)["href"].(string)
		if href != ds+"/"+url.PathEscape(name) {
			t.Errorf("href %q", href)
		}
		got := do(t, srv, "GET", href, "")
		want(t, got, http.StatusOK)
		if n := got.json(t)["dataset"].(map[string]any)["name"]; n != name {
			t.Errorf("GET %s: name %q, want %q", href, n, name)
		}
		want(t, do(t, srv, "GET", href+"/data?seconds=2", ""), http.StatusOK)
		want(t, do(t, srv, "PUT", href, `{"suspended": true}`), http.StatusAccepted)
		if d, _ := f.Dataset(name); d.State != "suspended" {
			t.Errorf("%s not suspended", name)
		}
	}
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops[execname]"}`), http.StatusCreated)
	r := do(t, srv, "GET", ds+"/syscall.ops[execname]", "")
	want(t, r, http.StatusOK)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestCreateErrors(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	for _, c := range []struct{ body, name, text string }{
		{``, "ERR_MISSING_ARG", "a JSON object is required"},
		{`{}`, "ERR_MISSING_ARG", `"statistic" is required`},
		{`{"statistic": ""}`, "ERR_MISSING_ARG", `"statistic" is required`},
		{`{"statistic": "syscall.ops"`, "ERR_INVALID_ARG", "request body"},
		{`{"statistic": 7}`, "ERR_INVALID_ARG", "request body"},
		{`[1, 2]`, "ERR_INVALID_ARG", "request body"},
		{`{"statistic": "syscall.ops"} {"statistic": "io.latency"}`, "ERR_INVALID_ARG", "after the JSON object"},
		{`{"statistic": "syscall.ops", "destructive": true}`, "ERR_UNKNOWN_ARG", `"destructive"`},
		{`{"statistic": "syscall.ops", "options": {"destructive": ""}}`, "ERR_UNKNOWN_ARG", `"options"`},
		{`{"statistic": "syscall.ops", "state": "suspended"}`, "ERR_INVALID_ARG", `"state" must be`},
	} {
		r := do(t, srv, "POST", ds, c.body)
		wantFault(t, r, http.StatusBadRequest, c.name, c.text)
	}
	if len(f.Calls) != 0 {
		t.Fatalf("bad bodies reached the backend: %v", f.Calls)
	}
	// The backend's positioned message is the answer's details, whole.
	r := do(t, srv, "POST", ds, `{"statistic": "sycall.ops[name]"}`)
	wantFault(t, r, http.StatusBadRequest, "ERR_INVALID_ARG", "sycall.ops[name]\n^\ndataset spec:1:1: unknown statistic \"sycall.ops\"")
	r = do(t, srv, "POST", ds, `{"statistic": "syscall.ops[name"}`)
	wantFault(t, r, http.StatusBadRequest, "ERR_INVALID_ARG", "dataset spec:1:17: expected ]")
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	wantFault(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusConflict, "ERR_OBJECT_EXISTS", "exists")
}

// The API gives the backend the spec, the state and D as they came, and
// nothing else: no request can carry an option that enables destructive
// actions to the backend (the interface has no such flag, and unknown
// properties are refused before the backend is called).
func TestNoDestructiveOptionReachesTheBackend(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	src := "#pragma D option destructive\nsyscall:::entry { @a = count(); system(\"id\"); }"
	want(t, do(t, srv, "POST", ds+"?destructive=1&options=destructive", `{"statistic": "syscall.ops"}`), http.StatusCreated)
	want(t, do(t, srv, "POST", api.Prefix+"/statistics?destructive=1", `{"name": "u.x", "description": "d", "source": `+jsonString(src)+`}`), http.StatusCreated)
	wantFault(t, do(t, srv, "POST", api.Prefix+"/statistics", `{"name": "u.y", "source": "x", "destructive": true}`), http.StatusBadRequest, "ERR_UNKNOWN_ARG", "destructive")
	wantCalls := []string{"Create(syscall.ops, archived)", fmt.Sprintf("DefineStatistic(%q, %q, %q)", "u.x", "d", src)}
	if !slices.Equal(f.Calls, wantCalls) {
		t.Fatalf("calls\n%q\nwant\n%q", f.Calls, wantCalls)
	}
}

func TestModifyErrors(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	for _, c := range []struct{ body, name, text string }{
		{`{}`, "ERR_MISSING_ARG", `"suspended"`},
		{`{"suspended": "yes"}`, "ERR_INVALID_ARG", "request body"},
		{`{"suspended": true, "state": "open"}`, "ERR_INVALID_ARG", "contradicts"},
		{`{"suspended": false, "state": "suspended"}`, "ERR_INVALID_ARG", "contradicts"},
		{`{"state": "gone"}`, "ERR_INVALID_ARG", `"state" must be`},
		{`{"name": "other"}`, "ERR_UNKNOWN_ARG", `"name"`},
	} {
		wantFault(t, do(t, srv, "PUT", ds+"/syscall.ops", c.body), http.StatusBadRequest, c.name, c.text)
	}
	wantFault(t, do(t, srv, "PUT", ds+"/io.ops", `{"suspended": true}`), http.StatusNotFound, "ERR_NOT_FOUND", "io.ops")
	wantFault(t, do(t, srv, "PUT", ds+"/io.ops/save", ``), http.StatusNotFound, "ERR_NOT_FOUND", "io.ops")
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	srv := server(t, apitest.New(), true, nil)
	for _, p := range []string{"/", "/api", "/api/analytics", "/api/analytics/v2/datasets", "/api/analytics/v1x",
		api.Prefix + "/nope", api.Prefix + "/events/x", api.Prefix + "/openapi.yaml/x", api.Prefix + "/worksheets/w/x",
		api.Prefix + "/statistics/nope.ops"} {
		wantFault(t, do(t, srv, "GET", p, ""), http.StatusNotFound, "ERR_NOT_FOUND", "")
	}
	r := do(t, srv, "PATCH", ds, `{}`)
	wantFault(t, r, http.StatusMethodNotAllowed, "ERR_NOT_IMPLEMENTED", "PATCH")
	if a := r.header.Get("Allow"); a != "GET, POST" {
		t.Errorf("Allow %q", a)
	}
	wantFault(t, do(t, srv, "POST", ds+"/data", ``), http.StatusMethodNotAllowed, "ERR_NOT_IMPLEMENTED", "")
	wantFault(t, do(t, srv, "DELETE", api.Prefix+"/events", ``), http.StatusMethodNotAllowed, "ERR_NOT_IMPLEMENTED", "")
}

func TestHugeBody(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, &api.Options{MaxBody: 1024})
	big := `{"statistic": "` + strings.Repeat("x", 4096) + `"}`
	wantFault(t, do(t, srv, "POST", ds, big), http.StatusRequestEntityTooLarge, "ERR_OVER_LIMIT", "larger than 1024 bytes")
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	// the default limit is 1 MiB
	srv = server(t, f, true, nil)
	big = `{"name": "w", "notes": "` + strings.Repeat("x", 2<<20) + `"}`
	wantFault(t, do(t, srv, "POST", api.Prefix+"/worksheets", big), http.StatusRequestEntityTooLarge, "ERR_OVER_LIMIT", "")
}

// panicky is a backend that panics listing datasets.
type panicky struct{ *apitest.Fake }

func (panicky) Datasets() []analytics.Dataset { panic("boom") }

func TestPanicIsA500(t *testing.T) {
	var mu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	srv := httptest.NewUnstartedServer(api.New(panicky{apitest.New()}, &api.Options{Logf: logf}))
	srv.Config.ConnContext = api.ConnContext(srv.Listener)
	srv.Start()
	defer srv.Close()
	wantFault(t, do(t, srv, "GET", ds, ""), http.StatusInternalServerError, "ERR_INTERNAL", "internal error")
	want(t, do(t, srv, "GET", api.Prefix+"/statistics", ""), http.StatusOK)
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "panic: boom") {
		t.Fatalf("logged %q", logged)
	}
}

// A dataset is marked for export at creation or with PUT, alone or with
// a state; a bad state in the same PUT changes nothing.
func TestDatasetExport(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, true, nil)
	r := do(t, srv, "POST", ds, `{"statistic": "syscall.ops[name]", "export": true}`)
	want(t, r, http.StatusCreated)
	if d := r.json(t)["dataset"].(map[string]any); d["export"] != true {
		t.Fatalf("created with export: %v", d)
	}
	r = do(t, srv, "POST", ds, `{"statistic": "io.latency"}`)
	if d := r.json(t)["dataset"].(map[string]any); d["export"] != false {
		t.Fatalf("created without export: %v", d)
	}
	href := ds + "/" + url.PathEscape("syscall.ops[name]")
	r = do(t, srv, "PUT", href, `{"export": false}`)
	want(t, r, http.StatusAccepted)
	if d := r.json(t)["dataset"].(map[string]any); d["export"] != false || d["state"] != "archived" {
		t.Fatalf("unexported: %v", d)
	}
	wantFault(t, do(t, srv, "PUT", href, `{"export": true, "state": "bogus"}`), http.StatusBadRequest, "ERR_INVALID_ARG", "bogus")
	if d := do(t, srv, "GET", href, "").json(t)["dataset"].(map[string]any); d["export"] != false {
		t.Fatalf("a refused PUT exported it: %v", d)
	}
	r = do(t, srv, "PUT", href, `{"export": true, "suspended": true}`)
	if d := r.json(t)["dataset"].(map[string]any); d["export"] != true || d["state"] != "suspended" {
		t.Fatalf("exported and suspended: %v", d)
	}
	wantFault(t, do(t, srv, "PUT", ds+"/nope", `{"export": true}`), http.StatusNotFound, "ERR_NOT_FOUND", "nope")
}
