package aggprom

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Server answers HTTP/1.1 requests for one path with a body made at
// each request: GET and HEAD of the path get 200, other paths 404, other
// methods 405. Every response has a Content-Length and closes the
// connection (Connection: close), which Prometheus's scraper and any HTTP
// client handle. Request headers are read and ignored: the body is always
// the text format, never compressed, whatever Accept and Accept-Encoding
// ask (an HTTP server may answer with the identity encoding and any type;
// Prometheus parses by the Content-Type of the answer).
//
// It is made over package syscall rather than net (see the package
// comment); the listening socket and each connection are os.Files, which
// the Go runtime polls. Data is sent with MSG_NOSIGNAL: a scraper that
// hangs up early costs an EPIPE, never a SIGPIPE, which sonde takes as a
// request to stop.
type Server struct {
	// Addr is the address listened on, with the port chosen for port 0.
	Addr string

	ln          *os.File
	path, ctype string
	body        func() []byte

	mu    sync.Mutex
	conns map[*os.File]bool
	done  bool
	wg    sync.WaitGroup
	slots chan struct{}
}

const (
	maxConns     = 8                // connections answered at once; more wait to be accepted
	maxHeader    = 16 << 10         // bytes of request line and headers
	connTimeout  = 10 * time.Second // to read a request and write its answer
	lingerTime   = time.Second      // to read what a client sends after the answer
	lingerBytes  = 256 << 10
	listenQueue  = 128
	acceptPause  = 50 * time.Millisecond // after an error such as EMFILE
	serverHeader = "sonde"
)

// Listen listens on addr, host:port where host is an IP address,
// "localhost" (127.0.0.1) or empty (every address, IPv6 and IPv4), and
// serves path with body's answers, of type ctype, until Close. body is
// called once per GET or HEAD of path, from the connection's goroutine.
func Listen(addr, path, ctype string, body func() []byte) (*Server, error) {
	fd, sa, err := listen(addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s := &Server{Addr: sa, ln: os.NewFile(uintptr(fd), "listener "+sa), path: path, ctype: ctype, body: body,
		conns: map[*os.File]bool{}, slots: make(chan struct{}, maxConns)}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Close stops listening, closes the connections open and waits until
// their goroutines have returned.
func (s *Server) Close() error {
	s.mu.Lock()
	s.done = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

// listen returns a listening TCP socket, non-blocking, and its address.
// Every address is IPv6's [::] taking IPv4 too, or 0.0.0.0 where the
// kernel has no IPv6.
func listen(addr string) (int, string, error) {
	ip, port, err := parseAddr(addr)
	if err != nil {
		return -1, "", err
	}
	family := syscall.AF_INET6
	if len(ip) == 4 {
		family = syscall.AF_INET
	}
	fd, err := socket(family)
	if err != nil && ip == nil && errors.Is(err, syscall.EAFNOSUPPORT) {
		family = syscall.AF_INET
		fd, err = socket(family)
	}
	if err != nil {
		return -1, "", err
	}
	var sa syscall.Sockaddr
	if family == syscall.AF_INET {
		sa4 := &syscall.SockaddrInet4{Port: port}
		copy(sa4.Addr[:], ip)
		sa = sa4
	} else {
		if ip == nil {
			err = syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 0)
		}
		sa6 := &syscall.SockaddrInet6{Port: port}
		copy(sa6.Addr[:], ip)
		sa = sa6
	}
	if err == nil {
		err = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	}
	if err == nil {
		err = os.NewSyscallError("bind", syscall.Bind(fd, sa))
	}
	if err == nil {
		err = os.NewSyscallError("listen", syscall.Listen(fd, listenQueue))
	}
	var bound syscall.Sockaddr
	if err == nil {
		bound, err = syscall.Getsockname(fd)
	}
	if err != nil {
		syscall.Close(fd)
		return -1, "", err
	}
	switch b := bound.(type) {
	case *syscall.SockaddrInet4:
		return fd, formatHostPort(b.Addr[:], b.Port), nil
	case *syscall.SockaddrInet6:
		return fd, formatHostPort(b.Addr[:], b.Port), nil
	}
	syscall.Close(fd)
	return -1, "", fmt.Errorf("unexpected socket address %T", bound)
}

func socket(family int) (int, error) {
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	return fd, os.NewSyscallError("socket", err)
}

// accept takes connections until the listener is closed.
func (s *Server) accept() {
	defer s.wg.Done()
	rc, err := s.ln.SyscallConn()
	if err != nil {
		return
	}
	for {
		s.slots <- struct{}{}
		var nfd int
		var aerr error
		err := rc.Read(func(fd uintptr) bool {
			nfd, _, aerr = syscall.Accept4(int(fd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
			return aerr != syscall.EAGAIN
		})
		if err != nil { // closed
			<-s.slots
			return
		}
		if aerr != nil {
			<-s.slots
			// ECONNABORTED, EMFILE...: the next connection may do
			time.Sleep(acceptPause)
			continue
		}
		c := os.NewFile(uintptr(nfd), "connection")
		s.mu.Lock()
		if s.done {
			s.mu.Unlock()
			c.Close()
			<-s.slots
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.answer(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
			<-s.slots
		}()
	}
}

// A response: the status, extra headers and the body (nil for a HEAD).
type response struct {
	status  int
	headers string
	ctype   string
	body    []byte
	length  int
}

// reason is a status code's reason phrase (a switch: a map would be
// made at every start of sonde, --prometheus or not).
func reason(status int) string {
	switch status {
	case 200:
		return "OK"
	case 400:
		return "Bad Request"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 431:
		return "Request Header Fields Too Large"
	}
	return "HTTP Version Not Supported" // 505
}

// answer reads one request from c and answers it.
func (s *Server) answer(c *os.File) {
	_ = c.SetDeadline(time.Now().Add(connTimeout))
	br := bufio.NewReaderSize(c, 4096)
	r := s.respond(br)
	if r == nil {
		return // the client went away
	}
	rc, err := c.SyscallConn()
	if err != nil {
		return
	}
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\nDate: %s\r\nServer: %s\r\n%s\r\n",
		r.status, reason(r.status), r.ctype, r.length, time.Now().UTC().Format(httpDate), serverHeader, r.headers)
	if send(rc, append([]byte(head), r.body...)) != nil {
		return
	}
	// Half-close, then read what the client may still send (a body, a
	// second request) until it closes: closing a socket with unread data
	// resets the connection, and the client may lose the answer.
	_ = rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_WR) })
	_ = c.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.Copy(io.Discard, io.LimitReader(br, lingerBytes))
}

// httpDate is the layout of the Date header (RFC 9110's IMF-fixdate).
const httpDate = "Mon, 02 Jan 2006 15:04:05 GMT"

// respond reads a request and makes its response; nil when no request
// came.
func (s *Server) respond(br *bufio.Reader) *response {
	plain := func(status int, headers string) *response {
		body := []byte(strconv.Itoa(status) + " " + strings.ToLower(reason(status)) + "\n")
		return &response{status: status, headers: headers, ctype: "text/plain; charset=utf-8", body: body, length: len(body)}
	}
	line, n, err := readLine(br, maxHeader)
	if err != nil {
		if errors.Is(err, errTooLong) {
			return plain(431, "")
		}
		return nil
	}
	method, target, proto, ok := parseRequestLine(line)
	if !ok {
		return plain(400, "")
	}
	if !strings.HasPrefix(proto, "HTTP/1.") {
		return plain(505, "")
	}
	for {
		h, m, err := readLine(br, maxHeader-n)
		n += m
		if err != nil {
			if errors.Is(err, errTooLong) {
				return plain(431, "")
			}
			return nil
		}
		if h == "" {
			break
		}
		if !strings.Contains(h, ":") {
			return plain(400, "")
		}
	}
	if method != "GET" && method != "HEAD" {
		return plain(405, "Allow: GET, HEAD\r\n")
	}
	if requestPath(target) != s.path {
		return plain(404, "")
	}
	body := s.body()
	r := &response{status: 200, ctype: s.ctype, body: body, length: len(body)}
	if method == "HEAD" {
		r.body = nil
	}
	return r
}

var errTooLong = errors.New("request header too long")

// readLine reads a line ended by CRLF (or LF alone) of at most limit
// bytes, and returns it without its end and the bytes it took.
func readLine(br *bufio.Reader, limit int) (string, int, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > limit {
			return "", len(b), errTooLong
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return "", len(b), err
		}
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	return s, len(b), nil
}

// parseRequestLine splits "GET /metrics HTTP/1.1".
func parseRequestLine(line string) (method, target, proto string, ok bool) {
	f := strings.Split(line, " ")
	if len(f) != 3 || f[0] == "" || f[1] == "" {
		return "", "", "", false
	}
	return f[0], f[1], f[2], true
}

// requestPath is a request target's path: without its query, and
// without scheme and authority in the absolute form.
func requestPath(target string) string {
	if rest, ok := strings.CutPrefix(target, "http://"); ok {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return "/"
		}
		target = rest[i:]
	}
	if i := strings.IndexAny(target, "?#"); i >= 0 {
		target = target[:i]
	}
	return target
}

// send writes all of b with MSG_NOSIGNAL, waiting through the runtime's
// poller when the socket's buffer is full (the connection's deadline
// holds).
func send(rc syscall.RawConn, b []byte) error {
	for len(b) > 0 {
		var n int
		var serr error
		err := rc.Write(func(fd uintptr) bool {
			n, serr = syscall.SendmsgN(int(fd), b, nil, nil, syscall.MSG_NOSIGNAL)
			return serr != syscall.EAGAIN
		})
		if err != nil {
			return err
		}
		if serr != nil {
			return serr
		}
		b = b[n:]
	}
	return nil
}
