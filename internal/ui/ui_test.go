package ui

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

func get(t *testing.T, h http.Handler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w
}

func TestRoutes(t *testing.T) {
	h := handler{files: fstest.MapFS{
		"index.html": {Data: []byte("<!doctype html>page")},
		"app.js":     {Data: []byte("js")},
		"README":     {Data: []byte("readme")},
	}}
	for _, c := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", "/", 200, "page"},
		{"GET", "/ui/", 200, "page"},
		{"GET", "/ui/worksheet/ws-1", 200, "page"},
		{"GET", "/ui/assets/app.js", 200, "js"},
		{"GET", "/ui/assets/README", 404, ""},
		{"GET", "/ui/assets/../index.html", 404, ""},
		{"GET", "/ui/assets/nope.js", 404, ""},
		{"GET", "/favicon.ico", 404, ""},
		{"POST", "/", 405, ""},
	} {
		w := get(t, h, c.method, c.path)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.body) {
			t.Errorf("%s %s: %d %q, want %d with %q", c.method, c.path, w.Code, w.Body, c.code, c.body)
		}
	}
}

// Without the bundle (go build without make build) the page says how to
// build it rather than failing.
func TestNotBuilt(t *testing.T) {
	h := handler{files: fstest.MapFS{"README": {Data: []byte("readme")}}}
	w := get(t, h, "GET", "/")
	if w.Code != 200 || !strings.Contains(w.Body.String(), "make build") {
		t.Errorf("got %d %q", w.Code, w.Body)
	}
}

// The API keeps its paths (escaped names too); the UI has the rest; off
// loopback both need credentials.
func TestWithAPI(t *testing.T) {
	h := WithAPI(api.New(apitest.New(), &api.Options{Tokens: map[string]api.Role{"0123456789abcdef": api.ReadOnly}}))
	for _, c := range []struct {
		path  string
		token bool
		code  int
		body  string
	}{
		{"/api/analytics/v1/datasets", true, 200, `"datasets"`},
		{"/api/analytics/v1/datasets/a%2Fb", true, 404, "ERR_NOT_FOUND"},
		{"/api/analytics/v1x", true, 404, ""},
		{"/", true, 200, "<"},
		{"/", false, 401, "ERR_UNAUTHORIZED"},
		{"/api/analytics/v1/datasets", false, 401, "ERR_UNAUTHORIZED"},
	} {
		r := httptest.NewRequest("GET", c.path, nil)
		if c.token {
			r.Header.Set("Authorization", "Bearer 0123456789abcdef")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.body) {
			t.Errorf("GET %s (token %v): %d %q, want %d with %q", c.path, c.token, w.Code, w.Body, c.code, c.body)
		}
	}
}
