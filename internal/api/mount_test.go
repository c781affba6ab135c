package api_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

// A service mounted beside the API shares its guard: off loopback it
// needs credentials, a read-only role may only GET; other paths stay the
// API's.
func TestMountGuarded(t *testing.T) {
	other := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := api.New(apitest.New(), authOptions(t)).Mount(map[string]http.Handler{"/api/alert/v1": other})
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = remoteListener{srv.Listener}
	srv.Config.ConnContext = api.ConnContext(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	req := func(method, path, token string) int {
		r, _ := http.NewRequest(method, srv.URL+path, nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		method, path, token string
		want                int
	}{
		{"GET", "/api/alert/v1/thresholds", "", http.StatusUnauthorized},
		{"GET", "/api/alert/v1", "", http.StatusUnauthorized},
		{"GET", "/api/alert/v1/thresholds", roToken, http.StatusTeapot},
		{"POST", "/api/alert/v1/thresholds", roToken, http.StatusForbidden},
		{"POST", "/api/alert/v1/thresholds", adminToken, http.StatusTeapot},
		{"GET", api.Prefix + "/datasets", adminToken, http.StatusOK},
	} {
		if got := req(c.method, c.path, c.token); got != c.want {
			t.Errorf("%s %s (token %q): %d, want %d", c.method, c.path, c.token, got, c.want)
		}
	}
}
