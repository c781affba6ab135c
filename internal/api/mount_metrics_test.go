package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

// A handler mounted at /metrics keeps the API's access rules: through a
// listener off loopback it needs credentials (a read-only token will
// do); every other path is the API's.
func TestMountMetrics(t *testing.T) {
	f := apitest.New()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "sonde_x_total 1\n") })
	h := api.New(f, &api.Options{Now: f.Now, Tokens: map[string]api.Role{"rtok": api.ReadOnly}}).Mount(map[string]http.Handler{"/metrics": metrics})
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = remoteListener{srv.Listener}
	srv.Config.ConnContext = api.ConnContext(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	want(t, do(t, srv, "GET", "/metrics", ""), http.StatusUnauthorized)
	r := do(t, srv, "GET", "/metrics", "", "Authorization", "Bearer rtok")
	want(t, r, http.StatusOK)
	if r.body != "sonde_x_total 1\n" {
		t.Errorf("/metrics: %q", r.body)
	}
	want(t, do(t, srv, "POST", "/metrics", "", "Authorization", "Bearer rtok"), http.StatusForbidden)
	want(t, do(t, srv, "GET", api.Prefix+"/datasets", "", "Authorization", "Bearer rtok"), http.StatusOK)
	want(t, do(t, srv, "GET", api.Prefix+"/datasets", ""), http.StatusUnauthorized)
}
