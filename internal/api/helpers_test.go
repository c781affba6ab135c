package api_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

// remoteListener is a listener that says it listens on all addresses,
// as a non-loopback listener does.
type remoteListener struct{ net.Listener }

func (l remoteListener) Addr() net.Addr {
	a := l.Listener.Addr().(*net.TCPAddr)
	return &net.TCPAddr{IP: net.IPv4zero, Port: a.Port}
}

// server starts the API over f: on a loopback listener, or on one that
// is not (then credentials are needed).
func server(t *testing.T, f *apitest.Fake, loopback bool, opts *api.Options) *httptest.Server {
	t.Helper()
	if opts == nil {
		opts = &api.Options{}
	}
	opts.Now = f.Now
	srv := httptest.NewUnstartedServer(api.New(f, opts))
	if !loopback {
		srv.Listener = remoteListener{srv.Listener}
	}
	srv.Config.ConnContext = api.ConnContext(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// reply is an answer: its status, headers and body.
type reply struct {
	status int
	header http.Header
	body   string
}

// json decodes the body.
func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, r.body)
	}
	return m
}

// fault returns the answer's fault, failing if it has none.
func (r reply) fault(t *testing.T) map[string]any {
	t.Helper()
	f, ok := r.json(t)["fault"].(map[string]any)
	if !ok {
		t.Fatalf("no fault in %s", r.body)
	}
	return f
}

// do makes a request; path is sent as it is (escaped by the caller).
func do(t *testing.T, srv *httptest.Server, method, path, body string, hdr ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// want fails unless r has status.
func want(t *testing.T, r reply, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
}

// wantFault fails unless r is a fault with status and name whose details
// contain text.
func wantFault(t *testing.T, r reply, status int, name, text string) {
	t.Helper()
	want(t, r, status)
	f := r.fault(t)
	if f["code"] != float64(status) || f["name"] != name || f["message"] != name {
		t.Fatalf("fault %v, want code %d name %s", f, status, name)
	}
	if d, _ := f["details"].(string); !strings.Contains(d, text) {
		t.Fatalf("fault details %q do not contain %q", d, text)
	}
}
