package test

import (
	"bufio"
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run sonde on a flood it feeds itself: every record it prints
// is a write(2) that fires its probe twice more, so its ring buffer never
// empties and keeps overflowing. sonde must still stop when asked (a signal,
// exit(), the end of -c's command) and report the drops as they happen.

// hangGuard is how long a test waits for sonde to end before it kills it
// and fails: a guard against a hang, not a measure of speed.
const hangGuard = 10 * time.Second

// floodProgram traces every write(2): two clauses, so each record sonde
// writes out brings two more. BEGIN's printf starts the flood.
const floodProgram = `BEGIN { printf("go\n"); }
syscall::write:entry { printf("%d\n", pid); }
syscall::write:entry { printf("%d\n", pid); }`

var dropLine = regexp.MustCompile(`(?m)^sonde: ([0-9]+) drops? on CPU ([0-9]+)$`)

// flood is a running sonde whose stdout is counted and discarded and whose
// stderr is kept.
type flood struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	err  bytes.Buffer
	out  int64
	done chan struct{}
	// status is the exit status once done is closed (-1: killed by a signal)
	status int
}

func startFlood(t *testing.T, args ...string) *flood {
	t.Helper()
	f := &flood{cmd: exec.Command(sonde, args...), done: make(chan struct{})}
	stdout, err := f.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := f.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		buf := make([]byte, 64<<10)
		for {
			n, err := stdout.Read(buf)
			f.mu.Lock()
			f.out += int64(n)
			f.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		r := bufio.NewReader(stderr)
		for {
			line, err := r.ReadString('\n')
			f.mu.Lock()
			f.err.WriteString(line)
			f.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		err := f.cmd.Wait()
		f.status = 0
		if ee, ok := err.(*exec.ExitError); ok {
			f.status = ee.ExitCode()
		}
		close(f.done)
	}()
	t.Cleanup(func() {
		select {
		case <-f.done:
		default:
			_ = f.cmd.Process.Kill()
			<-f.done
		}
	})
	return f
}

func (f *flood) stderr() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err.String()
}

func (f *flood) stdoutBytes() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out
}

// waitFor waits (within the hang guard) until cond holds or sonde ends.
func (f *flood) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		select {
		case <-f.done:
			t.Fatalf("sonde ended (status %d) before %s\nstderr:\n%s", f.status, what, f.stderr())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v\nstderr:\n%s", what, hangGuard, f.stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEnd waits for sonde to end, killing it (and failing) after the hang
// guard; it returns how long sonde took.
func (f *flood) waitEnd(t *testing.T, since time.Time) time.Duration {
	t.Helper()
	select {
	case <-f.done:
		return time.Since(since)
	case <-time.After(hangGuard):
		_ = f.cmd.Process.Signal(syscall.SIGKILL)
		<-f.done
		t.Fatalf("sonde did not end within %v; killed\nstderr (tail):\n%s", hangGuard, tail(f.stderr(), 2000))
	}
	return 0
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// checkDrops requires at least one drop report in DTrace's words and that
// the flood was real.
func checkDrops(t *testing.T, f *flood) {
	t.Helper()
	if !dropLine.MatchString(f.stderr()) {
		t.Errorf("no \"N drops on CPU n\" report on stderr:\n%s", tail(f.stderr(), 2000))
	}
	if f.stdoutBytes() == 0 {
		t.Errorf("no records were printed")
	}
}

// TestStopSignal: SIGINT and SIGTERM end sonde while its buffer keeps
// refilling, and drops are reported while it runs, not only at the end.
func TestStopSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			f := startFlood(t, "-q", "-x", "bufsize=16k", "-n", floodProgram)
			f.waitFor(t, "drop report while tracing", func() bool { return dropLine.MatchString(f.stderr()) })
			sent := time.Now()
			if err := f.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			took := f.waitEnd(t, sent)
			t.Logf("%v: sonde ended %v after the signal (%d bytes of records)", sig, took.Round(time.Millisecond), f.stdoutBytes())
			if f.status != 0 {
				t.Errorf("exit status %d, want 0\nstderr:\n%s", f.status, tail(f.stderr(), 2000))
			}
			checkDrops(t, f)
		})
	}
}

// TestStopExit: exit() from a tick clause ends sonde with its status while
// records flood.
func TestStopExit(t *testing.T) {
	start := time.Now()
	f := startFlood(t, "-q", "-x", "bufsize=16k", "-n", floodProgram+"\nprofile:::tick-1s { exit(3); }")
	took := f.waitEnd(t, start)
	t.Logf("sonde ended %v after it started, exit() at 1 s (%d bytes of records)", took.Round(time.Millisecond), f.stdoutBytes())
	if f.status != 3 {
		t.Errorf("exit status %d, want 3\nstderr:\n%s", f.status, tail(f.stderr(), 2000))
	}
	checkDrops(t, f)
}

// TestStopCommand: the end of -c's command ends sonde while records flood.
func TestStopCommand(t *testing.T) {
	start := time.Now()
	f := startFlood(t, "-q", "-x", "bufsize=16k", "-n", floodProgram, "-c", "sleep 1")
	took := f.waitEnd(t, start)
	t.Logf("sonde ended %v after it started, its command after 1 s (%d bytes of records)", took.Round(time.Millisecond), f.stdoutBytes())
	if f.status != 0 {
		t.Errorf("exit status %d, want 0\nstderr:\n%s", f.status, tail(f.stderr(), 2000))
	}
	if !strings.Contains(f.stderr(), "has exited") {
		t.Errorf("no notice of the command's exit:\n%s", tail(f.stderr(), 2000))
	}
	checkDrops(t, f)
}
