package aggprom

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/fdleak"
)

func TestMain(m *testing.M) { os.Exit(fdleak.Check(m)) }

// serve starts a server of /metrics on a loopback port with body, closed
// at the end of the test.
func serve(t *testing.T, body func() []byte) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", "/metrics", ContentType, body)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// client is net/http's, without keep-alive (the server closes anyway).
// At the end of the test its connections are closed and waited for:
// the transport closes them from its own goroutines, and a descriptor
// is released only once no read or write is pending on it, which may
// not have happened before the descriptor-leak check.
func client(t *testing.T) *http.Client {
	type conn struct {
		c            net.Conn
		path, target string // /proc/self/fd/N and what it links to while open
	}
	var mu sync.Mutex
	var conns []conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.c.Close()
		}
		deadline := time.Now().Add(10 * time.Second)
		for _, c := range conns {
			for time.Now().Before(deadline) {
				if l, _ := os.Readlink(c.path); l != c.target {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	})
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			c.Close()
			return nil, err
		}
		var path string
		rc.Control(func(fd uintptr) { path = "/proc/self/fd/" + strconv.Itoa(int(fd)) })
		target, _ := os.Readlink(path)
		mu.Lock()
		conns = append(conns, conn{c, path, target})
		mu.Unlock()
		return c, nil
	}
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: dial}, Timeout: 30 * time.Second}
}

// net/http's client reads the answers: GET and HEAD of /metrics with a
// scraper's headers (Accept asking for protobuf first, gzip), 404
// elsewhere, 405 for other methods, Content-Length always, the connection
// closed after each.
func TestHTTPClient(t *testing.T) {
	var calls atomic.Int64
	body := strings.Repeat("sonde_x_total 1\n", 10000) // larger than a socket buffer's first write
	s := serve(t, func() []byte { calls.Add(1); return []byte(body) })
	c := client(t)
	url := "http://" + s.Addr
	req, _ := http.NewRequest("GET", url+"/metrics?x=1", nil)
	req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.1")
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "1")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || string(got) != body {
		t.Fatalf("GET: %v %d, %d bytes of %d", err, resp.StatusCode, len(got), len(body))
	}
	if resp.ContentLength != int64(len(body)) || !resp.Close || resp.Header.Get("Content-Type") != ContentType ||
		resp.Header.Get("Content-Encoding") != "" || resp.Proto != "HTTP/1.1" {
		t.Errorf("GET: length %d, close %v, headers %v, %s", resp.ContentLength, resp.Close, resp.Header, resp.Proto)
	}
	if _, err := http.ParseTime(resp.Header.Get("Date")); err != nil {
		t.Errorf("Date: %v", err)
	}

	resp, err = c.Head(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(body)) {
		t.Errorf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
	}

	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/", 404, ""},
		{"GET", "/metricsx", 404, ""},
		{"POST", "/metrics", 405, "GET, HEAD"},
		{"DELETE", "/nothing", 405, "GET, HEAD"},
	} {
		var rb io.Reader
		if tc.method == "POST" {
			rb = strings.NewReader(strings.Repeat("x", 1<<20)) // a body the server never reads
		}
		req, _ := http.NewRequest(tc.method, url+tc.path, rb)
		resp, err := c.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", tc.method, tc.path, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow || resp.ContentLength != int64(len(b)) {
			t.Errorf("%s %s: %d %q (%d of %d bytes), want %d", tc.method, tc.path, resp.StatusCode, b, len(b), resp.ContentLength, tc.status)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("body made %d times, want 2 (GET and HEAD of /metrics)", n)
	}
}

// raw sends a request as given and returns the answer's status line.
func raw(t *testing.T, addr, request string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, request)
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// Requests that are not well formed get 400, 431 or 505; the server goes
// on answering.
func TestBadRequests(t *testing.T) {
	s := serve(t, func() []byte { return []byte("x 1\n") })
	for req, want := range map[string]string{
		"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n":                           "HTTP/1.1 200 OK",
		"GET /metrics HTTP/1.0\n\n":                                          "HTTP/1.1 200 OK",
		"GET http://host:9/metrics HTTP/1.1\r\n\r\n":                         "HTTP/1.1 200 OK",
		"GET /metrics\r\n\r\n":                                               "HTTP/1.1 400 Bad Request",
		"GET  /metrics HTTP/1.1\r\n\r\n":                                     "HTTP/1.1 400 Bad Request",
		"GET /metrics HTTP/1.1\r\nno colon\r\n\r\n":                          "HTTP/1.1 400 Bad Request",
		"GET /metrics HTTP/2.0\r\n\r\n":                                      "HTTP/1.1 505 HTTP Version Not Supported",
		"GET /metrics HTTP/1.1\r\nX: " + strings.Repeat("y", 20000) + "\r\n": "HTTP/1.1 431 Request Header Fields Too Large",
		"GET /" + strings.Repeat("y", 20000) + " HTTP/1.1\r\n\r\n":           "HTTP/1.1 431 Request Header Fields Too Large",
	} {
		if got := raw(t, s.Addr, req); got != want {
			t.Errorf("%.40q: %q, want %q", req, got, want)
		}
	}
}

// A scraper that hangs up before reading the answer costs the server an
// EPIPE, never a SIGPIPE (sonde stops on one: with net/http, two such
// scrapers ended sonde's tracing).
func TestHangUpNoSIGPIPE(t *testing.T) {
	pipes := make(chan os.Signal, 16)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	body := []byte(strings.Repeat("sonde_x_total 1\n", 1<<16)) // 1 MiB: many writes
	answered := make(chan struct{}, 16)
	s := serve(t, func() []byte { answered <- struct{}{}; return body })
	for i := 0; i < 5; i++ {
		c, err := net.Dial("tcp", s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET /metrics HTTP/1.1\r\n\r\n")
		if i%2 == 0 {
			// closed before the answer: the server's socket is then
			// in CLOSE_WAIT, and the reset to its first bytes makes
			// its next write fail with EPIPE
			c.Close()
			<-answered
			continue
		}
		<-answered
		c.Read(make([]byte, 100))
		c.(*net.TCPConn).SetLinger(0) // reset
		c.Close()
	}
	resp, err := client(t).Get("http://" + s.Addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-answered }()
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) != len(body) {
		t.Errorf("after the hang-ups, %d bytes of %d", len(b), len(body))
	}
	select {
	case <-pipes:
		t.Errorf("SIGPIPE")
	case <-time.After(100 * time.Millisecond):
	}
}

// Close ends connections that are open, idle or waiting for their body,
// and returns once their goroutines have.
func TestClose(t *testing.T) {
	release := make(chan struct{})
	s, err := Listen("127.0.0.1:0", "/metrics", ContentType, func() []byte { <-release; return nil })
	if err != nil {
		t.Fatal(err)
	}
	idle, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	waiting, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Close()
	io.WriteString(waiting, "GET /metrics HTTP/1.1\r\n\r\n")
	time.Sleep(50 * time.Millisecond)
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	time.Sleep(50 * time.Millisecond)
	close(release) // the body returns once the server is closing
	if err := <-closed; err != nil {
		t.Error(err)
	}
	idle.SetDeadline(time.Now().Add(10 * time.Second))
	if n, err := idle.Read(make([]byte, 1)); err == nil {
		t.Errorf("idle connection still open after Close (%d bytes)", n)
	}
	if _, err := net.Dial("tcp", s.Addr); err == nil {
		t.Errorf("still listening after Close")
	}
}

// More connections than are answered at once all get their answer.
func TestManyConnections(t *testing.T) {
	s := serve(t, func() []byte { return []byte("x 1\n") })
	errs := make(chan error, 3*maxConns)
	for i := 0; i < cap(errs); i++ {
		go func() {
			resp, err := client(t).Get("http://" + s.Addr + "/metrics")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "x 1\n" {
					err = fmt.Errorf("body %q", b)
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < cap(errs); i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// Addresses as sonde --prometheus takes them.
func TestAddresses(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:0":          "127.0.0.1:",
		"localhost:0":          "127.0.0.1:",
		"[::1]:0":              "[::1]:",
		":0":                   "[::]:",
		"0.0.0.0:0":            "[::]:",
		"[::ffff:127.0.0.1]:0": "127.0.0.1:",
	} {
		s, err := Listen(addr, "/metrics", ContentType, func() []byte { return []byte("x 1\n") })
		if err != nil {
			t.Errorf("%s: %v", addr, err)
			continue
		}
		if !strings.HasPrefix(s.Addr, want) {
			t.Errorf("%s: listening on %s, want %s...", addr, s.Addr, want)
		}
		port := s.Addr[strings.LastIndexByte(s.Addr, ':')+1:]
		if p, _ := strconv.Atoi(port); p == 0 {
			t.Errorf("%s: port %s", addr, port)
		}
		// every address takes IPv4 too
		host := "127.0.0.1"
		if strings.HasPrefix(s.Addr, "[::1]") {
			host = "[::1]"
		}
		resp, err := client(t).Get("http://" + host + ":" + port + "/metrics")
		if err != nil {
			t.Errorf("%s: %v", addr, err)
		} else {
			resp.Body.Close()
		}
		s.Close()
	}
	for addr, want := range map[string]string{
		"127.0.0.1":       "missing port",
		"127.0.0.1:x":     "invalid port",
		"127.0.0.1:70000": "invalid port",
		"::1:9400":        "brackets",
		"example.org:80":  "not an IP address",
		"[fe80::1%lo]:0":  "zoned",
	} {
		if _, err := Listen(addr, "/", ContentType, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", addr, err, want)
		}
	}
	// a port in use
	s := serve(t, nil)
	if _, err := Listen(s.Addr, "/", ContentType, nil); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("%s again: %v", s.Addr, err)
	}
}
