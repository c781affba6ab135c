package test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// promSonde is a sonde --prometheus started by a test.
type promSonde struct {
	cmd    *exec.Cmd
	addr   string // host:port of /metrics
	stdout bytes.Buffer
	log    bytes.Buffer // stderr
	done   chan struct{}
}

// startPromSonde runs sonde --prometheus on a free loopback port with
// the program, and waits until it serves.
func startPromSonde(t *testing.T, program string) *promSonde {
	t.Helper()
	s := &promSonde{cmd: exec.Command(sonde, "--prometheus", "127.0.0.1:0", "-qn", program), done: make(chan struct{})}
	s.cmd.Stdout = &s.stdout
	stderr, _ := s.cmd.StderrPipe()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.log.WriteString(sc.Text() + "\n")
			if a, ok := strings.CutPrefix(sc.Text(), "sonde: serving the aggregations on http://"); ok {
				addr <- strings.TrimSuffix(a, "/metrics")
			}
		}
		s.cmd.Wait()
	}()
	t.Cleanup(func() { s.cmd.Process.Kill(); <-s.done })
	select {
	case s.addr = <-addr:
	case <-s.done:
		t.Fatalf("sonde exited:\n%s", s.log.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("sonde did not serve:\n%s", s.log.String())
	}
	return s
}

// stop interrupts sonde and waits for it to exit.
func (s *promSonde) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("sonde did not exit on SIGINT:\n%s", s.log.String())
	}
}

// writesOf makes n write(2)s of size bytes each with the dd at path.
func writesOf(t *testing.T, path string, n, size int) {
	t.Helper()
	out, err := exec.Command(path, "if=/dev/zero", "of=/dev/null", "bs="+strconv.Itoa(size), "count="+strconv.Itoa(n), "status=none").CombinedOutput()
	if err != nil {
		t.Fatalf("dd: %v\n%s", err, out)
	}
}

// sonde --prometheus's histograms, scraped by a real Prometheus: a dd's
// 1,000 writes of -1 (bs=1, arg2 - 2) and 300 of 3 (bs=5) are in the
// classic buckets exactly, le = b-1 for each bucket [a, b), and
// histogram_quantile falls in the bucket that holds the median. (sonde's
// exporter before internal/aggprom took quantize()'s bucket [-1, 0) for
// the open last one: its 1,000 events were in le="+Inf" only.)
func TestPrometheusSondeHistograms(t *testing.T) {
	name, dd := uniqueDD(t, "hdd")
	s := startPromSonde(t, `syscall::write:entry /execname == "`+name+`"/ {
		@q = quantize((int64_t)arg2 - 2); @l[probefunc] = lquantize((int64_t)arg2 - 2, -4, 4, 1); }`)
	p := startPrometheus(t, false, s.addr)
	p.poll("a first scrape of sonde", func() bool { return len(p.query(`sonde_folded_keys{aggregation="q"}`, time.Time{})) == 1 })
	writesOf(t, dd, 1000, 1)
	writesOf(t, dd, 300, 5)
	ended := time.Now()
	p.poll("a scrape after the dd", func() bool {
		r := p.query(`sonde_q_count[1m]`, time.Time{})
		return len(r) == 1 && r[0].Values[len(r[0].Values)-1].T.After(ended)
	})
	at := time.Now()
	for q, want := range map[string]float64{
		`sonde_q_bucket{le="-2"}`:                       0,
		`sonde_q_bucket{le="-1"}`:                       1000,
		`sonde_q_bucket{le="1"}`:                        1000,
		`sonde_q_bucket{le="3"}`:                        1300,
		`sonde_q_bucket{le="+Inf"}`:                     1300,
		`sonde_q_count`:                                 1300,
		`sonde_l_bucket{key0="write",le="-2"}`:          0,
		`sonde_l_bucket{key0="write",le="-1"}`:          1000,
		`sonde_l_bucket{key0="write",le="2"}`:           1000,
		`sonde_l_bucket{key0="write",le="3"}`:           1300,
		`sonde_l_bucket{key0="write",le="+Inf"}`:        1300,
		`count(sonde_q_bucket)`:                         5,
		`histogram_quantile(0.5, sonde_q_bucket) > -2`:  1, // in (-2, -1]: -1's bucket
		`histogram_quantile(0.5, sonde_q_bucket) <= -1`: 1,
		`histogram_quantile(0.9, sonde_q_bucket) > 1`:   1, // in (1, 3]: [2, 4)
		`histogram_quantile(0.9, sonde_q_bucket) <= 3`:  1,
	} {
		r := p.query(q, at)
		got := -1.0
		if len(r) == 1 {
			got = r[0].Values[0].V
		}
		if strings.HasPrefix(q, "histogram_quantile") && len(r) == 1 {
			got = 1 // a comparison filters: one sample is true
		}
		if got != want {
			t.Errorf("%s = %v (%d series), want %v", q, got, len(r), want)
		}
	}
	s.stop(t)
	if !regexp.MustCompile(`(?m)^\s+-1 \|@+\s+1000\s*$`).MatchString(s.stdout.String()) {
		t.Errorf("sonde's own output:\n%s", s.stdout.String())
	}
}

// Scrapers that hang up before reading the answer neither stop sonde
// nor its exporter. (sonde stops on SIGPIPE, and net/http's writes to
// such a connection raised one: two hang-ups ended the trace.)
func TestPrometheusSondeHangUps(t *testing.T) {
	name, dd := uniqueDD(t, "udd")
	// many keys: an answer of many writes
	s := startPromSonde(t, `syscall:::entry /execname == "`+name+`" || pid != $pid/ { @[probefunc, pid] = count(); @w = count(); }`)
	writesOf(t, dd, 10, 1)
	for i := 0; i < 10; i++ {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatalf("hang-up %d: %v\n%s", i, err, s.log.String())
		}
		io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		if i%2 == 1 {
			c.Read(make([]byte, 100))
			c.(*net.TCPConn).SetLinger(0) // a reset
		}
		c.Close()
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case <-s.done:
		t.Fatalf("sonde exited after scrapers hung up:\n%s", s.log.String())
	default:
	}
	// still serving, whole answers
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
	answer, err := io.ReadAll(c)
	if err != nil || !bytes.HasPrefix(answer, []byte("HTTP/1.1 200 OK\r\n")) || !bytes.Contains(answer, []byte("\nsonde_w_total ")) {
		t.Errorf("after the hang-ups: %v\n%.400s", err, answer)
	}
	s.stop(t)
}
