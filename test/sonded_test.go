package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/testenv"
)

// sonded is a running agent started by a test.
type sonded struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string // http://127.0.0.1:PORT/api/analytics/v1
	addr string
	log  *bytes.Buffer
	done chan struct{}
}

var listening = regexp.MustCompile(`listening on (\S+),`)

// startSonded starts bin/sonded on dir, listening on a free port of
// listen's host (127.0.0.1 unless given), and waits until it serves.
func startSonded(t *testing.T, dir string, args ...string) *sonded {
	t.Helper()
	bin := filepath.Join(filepath.Dir(sonde), "sonded")
	listen := "127.0.0.1:0"
	for i, a := range args {
		if a == "--listen" && i+1 < len(args) {
			listen = ""
		}
	}
	// No budget: on a loaded machine a drill-down's cost could pass 5%
	// of a CPU and have it suspended in the middle of a count.
	all := []string{"--state-dir", dir, "--budget", "-1"}
	if listen != "" {
		all = append(all, "--listen", listen)
	}
	cmd := exec.Command(bin, append(all, args...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &sonded{t: t, cmd: cmd, log: &bytes.Buffer{}, done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.log.WriteString(sc.Text() + "\n")
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				ready <- m[1]
			}
		}
		cmd.Wait()
	}()
	select {
	case addr := <-ready:
		port := addr[strings.LastIndexByte(addr, ':')+1:]
		s.addr = "127.0.0.1:" + port
		s.base = "http://" + s.addr + "/api/analytics/v1"
	case <-s.done:
		t.Fatalf("sonded exited:\n%s", s.log)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("sonded did not start:\n%s", s.log)
	}
	t.Cleanup(func() { s.stop(syscall.SIGKILL) })
	return s
}

// stop sends sig and waits for the agent to exit (a hang guard of 30 s).
func (s *sonded) stop(sig syscall.Signal) {
	s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		s.t.Errorf("sonded did not stop on %v:\n%s", sig, s.log)
		<-s.done
	}
}

// call makes a request and decodes a JSON answer into out (if not nil);
// it returns the status and the body.
func (s *sonded) call(method, path string, body any, out any) (int, string) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("%s %s: %v\n%s", method, path, err, b)
		}
	}
	return resp.StatusCode, string(b)
}

// create creates the dataset spec, archived, or fails the test.
func (s *sonded) create(spec string) {
	s.t.Helper()
	if st, body := s.call("POST", "/datasets", map[string]string{"statistic": spec}, nil); st != 201 {
		s.t.Fatalf("create %s: %d %s", spec, st, body)
	}
}

// datasetPath is the URL path of a dataset, its name escaped.
func datasetPath(name string) string { return "/datasets/" + url.PathEscape(name) }

type dataResp struct {
	Data []struct {
		Sample int64 `json:"sample"`
		Data   struct {
			Value int64 `json:"value"`
			Data  []struct {
				Key   string `json:"key"`
				Value int64  `json:"value"`
			} `json:"data"`
		} `json:"data"`
	} `json:"data"`
}

// sumKey reads the dataset's seconds from start for n seconds (waiting for
// them) and sums key's values.
func (s *sonded) sumKey(name string, start time.Time, n int, key string) int64 {
	s.t.Helper()
	var d dataResp
	q := fmt.Sprintf("%s/data?start=%s&seconds=%d", datasetPath(name), url.QueryEscape(start.UTC().Format(time.RFC3339)), n)
	if st, body := s.call("GET", q, nil, &d); st != 200 {
		s.t.Fatalf("data: %d %s", st, body)
	}
	var sum int64
	for _, sec := range d.Data {
		for _, r := range sec.Data.Data {
			if r.Key == key {
				sum += r.Value
			}
		}
	}
	return sum
}

// uniqueDD copies dd under a name of this run's, so that nothing else on
// the machine is counted.
func uniqueDD(t *testing.T, prefix string) (string, string) {
	name := prefix + strconv.Itoa(os.Getpid()%100000)
	path := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "/bin/dd", path).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return name, path
}

// runDD makes n write(2)s of one byte, and returns when it started and how
// many seconds to read to cover it.
func runDD(t *testing.T, path string, n int) (time.Time, int) {
	t.Helper()
	// Start in a second of its own, so that the seconds read for this dd
	// hold nothing of what the test did before (another dd's last writes,
	// the part of a second a suspension keeps). Not at its very start:
	// the agent's second begins when its tick swaps the generations,
	// which a loaded machine delays by some milliseconds.
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 100*time.Millisecond).Sub(now))
	start := time.Now().Truncate(time.Second)
	out, err := exec.Command(path, "if=/dev/zero", "of=/dev/null", "bs=1", "count="+strconv.Itoa(n), "status=none").CombinedOutput()
	if err != nil {
		t.Fatalf("dd: %v\n%s", err, out)
	}
	return start, int(time.Since(start)/time.Second) + 2
}

// The agent end to end: a drill-down dataset created through the API
// counts exactly the writes of one process, its program carries the
// predicate, the CLI shows it, it suspends and resumes, bad input gets a
// 400 with the compiler's message, and a restart (clean, then kill -9)
// keeps datasets and data.
func TestSonded(t *testing.T) {
	dir := t.TempDir()
	s := startSonded(t, dir)
	name, dd := uniqueDD(t, "sdd")
	spec := "syscall.ops[execname=" + name + "][name]"
	var resp struct {
		Dataset struct {
			Name    string `json:"name"`
			Program string `json:"program"`
		} `json:"dataset"`
	}
	if st, body := s.call("POST", "/datasets", map[string]string{"statistic": spec}, &resp); st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	created := resp.Dataset
	if created.Name != spec || !strings.Contains(created.Program, `execname == "`+name+`"`) {
		t.Errorf("created %q with program:\n%s", created.Name, created.Program)
	}
	// Another copy under another name is not counted: the predicate is
	// in the kernel.
	_, other := uniqueDD(t, "xdd")
	runDD(t, other, 3000)
	from, n := runDD(t, dd, 12345)
	if got := s.sumKey(spec, from, n, "write"); got != 12345 {
		t.Errorf("write = %d over %d seconds, want exactly 12345", got, n)
	}

	// Direct I/O to a disk: io.ops broken down by direction counts exactly
	// the write requests the process made (each 4 KiB O_DIRECT write is
	// one). The disk is the test's own loop device.
	ioName, iodd := uniqueDD(t, "sio")
	ioSpec := "io.ops[execname=" + ioName + "][op]"
	s.create(ioSpec)
	file := testenv.LoopDevice(t)
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 100*time.Millisecond).Sub(now)) // as runDD
	ioFrom := time.Now().Truncate(time.Second)
	if out, err := exec.Command(iodd, "if=/dev/zero", "of="+file, "bs=4k", "count=200", "oflag=direct", "status=none").CombinedOutput(); err != nil {
		t.Fatalf("dd: %v\n%s", err, out)
	}
	ioN := int(time.Since(ioFrom)/time.Second) + 2
	var d dataResp
	q := fmt.Sprintf("%s/data?start=%s&seconds=%d", datasetPath(ioSpec), url.QueryEscape(ioFrom.UTC().Format(time.RFC3339)), ioN)
	if st, body := s.call("GET", q, nil, &d); st != 200 {
		t.Fatalf("data: %d %s", st, body)
	}
	var ios int64
	for _, sec := range d.Data {
		for _, r := range sec.Data.Data {
			if r.Key == "write" {
				ios += r.Value
			}
		}
	}
	if ios != 200 {
		t.Errorf("%s: %d write requests, want exactly 200", ioSpec, ios)
	}

	// The CLI lists it and reads it.
	cli := func(args ...string) string {
		out, err := exec.Command(sonde, append([]string{"analytics", "-url", "http://" + s.addr}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("sonde analytics %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := cli("datasets"); !strings.Contains(out, "DATASET") || !strings.Contains(out, spec) || !strings.Contains(out, "syscall.ops\n") {
		t.Errorf("sonde analytics datasets:\n%s", out)
	}

	// Suspended, it counts nothing; resumed, it counts again.
	if st, body := s.call("PUT", datasetPath(spec), map[string]bool{"suspended": true}, nil); st >= 300 {
		t.Fatalf("suspend: %d %s", st, body)
	}
	from2, n2 := runDD(t, dd, 777)
	if got := s.sumKey(spec, from2, n2, "write"); got != 0 {
		t.Errorf("%d writes counted while suspended", got)
	}
	if st, body := s.call("PUT", datasetPath(spec), map[string]bool{"suspended": false}, nil); st >= 300 {
		t.Fatalf("resume: %d %s", st, body)
	}
	from3, n3 := runDD(t, dd, 300)
	if got := s.sumKey(spec, from3, n3, "write"); got != 300 {
		t.Errorf("write = %d after resuming, want 300", got)
	}

	// Bad input: a 400 that says why, and the agent runs on.
	if st, body := s.call("POST", "/datasets", map[string]string{"statistic": "syscall.ops[nosuch]"}, nil); st != 400 || !strings.Contains(body, "nosuch") {
		t.Errorf("bad breakdown: %d %s", st, body)
	}
	st, body := s.call("POST", "/statistics", map[string]string{"name": "bad.d", "source": "syscall:::entry { @[execname] = count(; }"}, nil)
	if st != 400 || !strings.Contains(body, "1:") {
		t.Errorf("bad D: %d %s", st, body)
	}
	// D from the API never takes destructive actions, whatever its pragmas say.
	st, body = s.call("POST", "/statistics", map[string]string{"name": "kill.d",
		"source": "#pragma D option destructive\nsyscall::write:entry /execname == \"nosuchprocess\"/ { raise(9); @ = count(); }"}, nil)
	if st != 400 || !strings.Contains(body, "destructive") {
		t.Errorf("a destructive user statistic: %d %s", st, body)
	}
	if st, _ := s.call("GET", "/datasets", nil, nil); st != 200 {
		t.Fatalf("the agent stopped answering after bad input")
	}

	// A clean restart keeps the dataset and its data.
	s.stop(syscall.SIGTERM)
	s = startSonded(t, dir)
	if st, body := s.call("GET", datasetPath(spec), nil, nil); st != 200 {
		t.Fatalf("after restart: %d %s", st, body)
	}
	if got := s.sumKey(spec, from, n, "write"); got != 12345 {
		t.Errorf("after restart, write = %d, want 12345", got)
	}

	// kill -9 loses at most the second it was in: what was read back
	// before the kill is there after it.
	from4, n4 := runDD(t, dd, 2000)
	if got := s.sumKey(spec, from4, n4, "write"); got != 2000 {
		t.Fatalf("write = %d, want 2000", got)
	}
	s.stop(syscall.SIGKILL)
	s = startSonded(t, dir)
	if got := s.sumKey(spec, from4, n4, "write"); got != 2000 {
		t.Errorf("after kill -9, write = %d, want 2000", got)
	}
}

// Off loopback, the API needs a credential; sonded refuses to listen there
// without any.
func TestSondedAuth(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(filepath.Dir(sonde), "sonded")
	out, err := exec.Command(bin, "--state-dir", dir, "--listen", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--tokens") {
		t.Errorf("sonded off loopback without credentials: %v\n%s", err, out)
	}
	tokens := filepath.Join(dir, "tokens")
	const token = "0123456789abcdef-admin-token"
	os.WriteFile(tokens, []byte(token+" admin\n"), 0o600)
	s := startSonded(t, dir, "--listen", "0.0.0.0:0", "--tokens", tokens)
	if st, _ := s.call("GET", "/datasets", nil, nil); st != 401 {
		t.Errorf("no token: status %d, want 401", st)
	}
	req, _ := http.NewRequest("GET", s.base+"/datasets", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the token: status %d, want 200", resp.StatusCode)
	}
}
