package api_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/api"
	"github.com/sonde-trace/sonde/internal/api/apitest"
)

const (
	adminToken = "admin-token-0123456789"
	roToken    = "reader-token-0123456789"
)

// authOptions has a token and a user of each role.
func authOptions(t *testing.T) *api.Options {
	t.Helper()
	tokens, err := api.ParseTokens(strings.NewReader("# tokens\n"+adminToken+" admin\n\n"+roToken+"   read-only\n"), "tokens")
	if err != nil {
		t.Fatal(err)
	}
	var users strings.Builder
	for _, u := range []struct{ name, role, pass string }{{"root", "admin", "s3cret"}, {"watcher", "read-only", "look"}} {
		h, err := api.HashPassword(u.pass)
		if err != nil {
			t.Fatal(err)
		}
		users.WriteString(u.name + " " + u.role + " " + h + "\n")
	}
	um, err := api.ParseUsers(strings.NewReader(users.String()), "users")
	if err != nil {
		t.Fatal(err)
	}
	return &api.Options{Tokens: tokens, Users: um}
}

func TestAuthOffLoopback(t *testing.T) {
	f := apitest.New()
	srv := server(t, f, false, authOptions(t))
	create := `{"statistic": "syscall.ops"}`
	r := do(t, srv, "GET", ds, "")
	wantFault(t, r, http.StatusUnauthorized, "ERR_UNAUTHORIZED", "credentials required")
	if !strings.Contains(r.header.Get("WWW-Authenticate"), "Basic") {
		t.Errorf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
	}
	for _, hdr := range [][]string{
		{"Authorization", "Bearer wrong-token-0123456789"},
		{"Authorization", "Bearer "},
		{"Authorization", "Basic cm9vdDp3cm9uZw=="}, // root:wrong
		{"Authorization", "Basic bm9ib2R5OnM="},     // nobody:s
		{"X-Auth-User", "root", "X-Auth-Key", "wrong"},
		{"X-Auth-User", "root"},
	} {
		wantFault(t, do(t, srv, "POST", ds, create, hdr...), http.StatusUnauthorized, "ERR_UNAUTHORIZED", "invalid")
	}
	if len(f.Calls) != 0 {
		t.Fatalf("unauthenticated requests reached the backend: %v", f.Calls)
	}
	readers := [][]string{
		{"Authorization", "Bearer " + roToken},
		{"Authorization", "Basic d2F0Y2hlcjpsb29r"}, // watcher:look
		{"X-Auth-User", "watcher", "X-Auth-Key", "look"},
	}
	for _, hdr := range readers {
		want(t, do(t, srv, "GET", ds, "", hdr...), http.StatusOK)
		want(t, do(t, srv, "GET", api.Prefix+"/openapi.yaml", "", hdr...), http.StatusOK)
		for _, m := range []string{"POST", "PUT", "DELETE"} {
			wantFault(t, do(t, srv, m, ds+"/syscall.ops", create, hdr...), http.StatusForbidden, "ERR_DENIED", "read-only role may not "+m)
		}
	}
	if len(f.Calls) != 0 {
		t.Fatalf("read-only requests changed something: %v", f.Calls)
	}
	admins := [][]string{
		{"Authorization", "Bearer " + adminToken},
		{"Authorization", "Basic cm9vdDpzM2NyZXQ="}, // root:s3cret
		{"X-Auth-User", "root", "X-Auth-Key", "s3cret"},
	}
	for _, hdr := range admins {
		want(t, do(t, srv, "POST", ds, create, hdr...), http.StatusCreated)
		want(t, do(t, srv, "DELETE", ds+"/syscall.ops", "", hdr...), http.StatusNoContent)
	}
	// A second request with the same password is answered from the
	// cache of verified credentials; it must still be right.
	want(t, do(t, srv, "GET", ds, "", admins[1]...), http.StatusOK)
	wantFault(t, do(t, srv, "GET", ds, "", "Authorization", "Basic cm9vdDpzM2NyZXQ_"), http.StatusUnauthorized, "ERR_UNAUTHORIZED", "")
}

func TestAuthOnLoopback(t *testing.T) {
	srv := server(t, apitest.New(), true, authOptions(t))
	want(t, do(t, srv, "POST", ds, `{"statistic": "syscall.ops"}`), http.StatusCreated)
	// A read-only credential on loopback does not restrict.
	want(t, do(t, srv, "DELETE", ds+"/syscall.ops", "", "Authorization", "Bearer "+roToken), http.StatusNoContent)
}

// A handler on a server that does not say which listener a connection
// came through needs credentials, even from loopback: it fails closed.
func TestAuthUnknownListenerNeedsCredentials(t *testing.T) {
	f := apitest.New()
	srv := httptest.NewServer(api.New(f, authOptions(t)))
	defer srv.Close()
	wantFault(t, do(t, srv, "GET", ds, ""), http.StatusUnauthorized, "ERR_UNAUTHORIZED", "")
	want(t, do(t, srv, "GET", ds, "", "Authorization", "Bearer "+roToken), http.StatusOK)
}

func TestIsLoopback(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7390}, true},
		{&net.TCPAddr{IP: net.IPv4(127, 1, 2, 3), Port: 7390}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 7390}, true},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 7390}, false},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 7390}, false},
		{&net.TCPAddr{Port: 7390}, false},
		{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 7390}, false},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 7390}, true},
		{&net.UnixAddr{Name: "/run/sonde.sock", Net: "unix"}, true},
		{&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}, false},
	} {
		if got := api.IsLoopback(c.addr); got != c.want {
			t.Errorf("IsLoopback(%v) = %v", c.addr, got)
		}
	}
}

func TestParseCredentialFiles(t *testing.T) {
	for _, c := range []struct{ text, err string }{
		{"short admin\n", "tokens:1: token shorter than 16"},
		{adminToken + " root\n", "tokens:1: unknown role \"root\""},
		{"# c\n" + adminToken + "\n", "tokens:2: want TOKEN ROLE, found 1 fields"},
		{adminToken + " admin extra\n", "tokens:1: want TOKEN ROLE, found 3 fields"},
	} {
		if _, err := api.ParseTokens(strings.NewReader(c.text), "tokens"); err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("ParseTokens(%q): %v, want %s", c.text, err, c.err)
		}
	}
	for _, c := range []struct{ text, err string }{
		{"root admin plain\n", "users:1: hash is not pbkdf2-sha256$ITERATIONS$SALT$KEY"},
		{"root admin pbkdf2-sha256$0$AAAA$AAAA\n", "users:1: hash: bad iteration count \"0\""},
		{"root admin pbkdf2-sha256$10$!!$AAAA\n", "users:1: hash: bad salt"},
		{"root sudo pbkdf2-sha256$10$AAAA$AAAA\n", "users:1: unknown role \"sudo\""},
		{"root admin\n", "users:1: want USER ROLE HASH, found 2 fields"},
	} {
		if _, err := api.ParseUsers(strings.NewReader(c.text), "users"); err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("ParseUsers(%q): %v, want %s", c.text, err, c.err)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "tokens")
	if err := os.WriteFile(p, []byte(adminToken+" admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if m, err := api.LoadTokens(p); err != nil || m[adminToken] != api.Admin {
		t.Fatalf("LoadTokens: %v %v", m, err)
	}
	if _, err := api.LoadUsers(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("LoadUsers of a missing file: %v", err)
	}
}

// serveOn serves the API on ln (as sonded would, with Serve) until the
// test ends.
func serveOn(t *testing.T, ln net.Listener, cert, key string) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- api.ServeListener(ctx, ln, api.New(apitest.New(), authOptions(t)), cert, key) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("ServeListener: %v", err)
		}
	})
	return errc
}

func get(t *testing.T, c *http.Client, url string, hdr ...string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Listening on all addresses is not loopback, even for a client that
// connects through 127.0.0.1.
func TestServeDecidesOnTheListener(t *testing.T) {
	all, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, all, "", "")
	url := "http://127.0.0.1:" + portOf(all) + ds
	if s := get(t, http.DefaultClient, url); s != http.StatusUnauthorized {
		t.Fatalf("0.0.0.0 without credentials: %d", s)
	}
	if s := get(t, http.DefaultClient, url, "Authorization", "Bearer "+roToken); s != http.StatusOK {
		t.Fatalf("0.0.0.0 with a token: %d", s)
	}
	lo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, lo, "", "")
	if s := get(t, http.DefaultClient, "http://"+lo.Addr().String()+ds); s != http.StatusOK {
		t.Fatalf("loopback without credentials: %d", s)
	}
}

func portOf(ln net.Listener) string {
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

func TestServeTLS(t *testing.T) {
	cert, key, pool := selfSigned(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, ln, cert, key)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if s := get(t, c, "https://"+ln.Addr().String()+ds); s != http.StatusOK {
		t.Fatalf("over TLS: %d", s)
	}
	// Plain HTTP to the TLS port is not served.
	if s := get(t, http.DefaultClient, "http://"+ln.Addr().String()+ds); s != http.StatusBadRequest {
		t.Fatalf("plain HTTP to TLS: %d", s)
	}
	for _, c := range []struct{ cert, key, err string }{
		{cert, "", "both a certificate and a key"},
		{"", key, "both a certificate and a key"},
		{key, cert, "tls:"},
		{cert, filepath.Join(t.TempDir(), "nokey"), "no such file"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		err = api.ServeListener(context.Background(), ln, http.NotFoundHandler(), c.cert, c.key)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("cert %q key %q: %v", c.cert, c.key, err)
		}
	}
	if err := api.Serve(context.Background(), "256.0.0.1:0", http.NotFoundHandler(), "", ""); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Errorf("Serve on a bad address: %v", err)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sonded test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	err = errors.Join(
		os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600),
		os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return certFile, keyFile, pool
}
