package test

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// These tests hold sonde to account for what it could not report: every
// fault is either reported or counted among the drops, and every dynamic
// variable or aggregation entry that did not fit is counted, in DTrace's
// words. The workload is dd writing one byte at a time to its fd 1, a
// known number of times.

// ddWrites is a -c command making exactly n write(2) calls on fd 1.
func ddWrites(n int) string {
	return "dd if=/dev/zero of=/dev/null bs=1 count=" + strconv.Itoa(n) + " status=none"
}

// runSonde runs sonde to its end (within a generous guard) and returns its
// stdout and stderr.
func runSonde(t *testing.T, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sonde, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("sonde did not end within 60 s\nstderr (tail):\n%s", tail(stderr.String(), 2000))
	}
	if err != nil {
		t.Fatalf("sonde: %v\nstderr (tail):\n%s", err, tail(stderr.String(), 2000))
	}
	return stdout.String(), stderr.String()
}

// total sums the counts that re's first group captures in s.
func total(re *regexp.Regexp, s string) int {
	n := 0
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		k, _ := strconv.Atoi(m[1])
		n += k
	}
	return n
}

var errorLine = regexp.MustCompile(`(?m)^sonde: error on enabled probe ID [0-9]+ \(ID [0-9]+: syscall::write:entry\): invalid address \(0x0\) in action #1 at -n:1:[0-9]+$`)

// TestErrorsAccounted: 200,000 faults, most of them into a ring buffer too
// small to hold them; the errors reported and the drops reported add up to
// 200,000 exactly.
func TestErrorsAccounted(t *testing.T) {
	const n = 200000
	_, stderr := runSonde(t, "-q", "-x", "bufsize=16k",
		"-n", `syscall::write:entry /pid == $target && arg0 == 1/ { trace(*(int *)0); }`,
		"-c", ddWrites(n))
	errs := len(errorLine.FindAllString(stderr, -1))
	drops := total(dropLine, stderr)
	t.Logf("%d errors reported, %d drops reported", errs, drops)
	if errs+drops != n {
		t.Errorf("%d errors + %d drops = %d, want %d\nstderr (tail):\n%s", errs, drops, errs+drops, n, tail(stderr, 2000))
	}
}

var (
	dynDropLine = regexp.MustCompile(`(?m)^sonde: ([0-9]+) dynamic variable drops?$`)
	aggDropLine = regexp.MustCompile(`(?m)^sonde: ([0-9]+) aggregation drops? on CPU [0-9]+$`)
)

// TestDynVarDrops: an associative array of 1024 entries (the least
// dynvarsize gives) offered 2000 keys: 976 dynamic variable drops.
func TestDynVarDrops(t *testing.T) {
	_, stderr := runSonde(t, "-q", "-x", "dynvarsize=1",
		"-n", `syscall::write:entry /pid == $target && arg0 == 1/ { a[n++] = 1; }`,
		"-c", ddWrites(2000))
	if got := total(dynDropLine, stderr); got != 976 {
		t.Errorf("%d dynamic variable drops reported, want 976\nstderr:\n%s", got, stderr)
	}
}

// TestAggDrops: an aggregation of 1024 entries (the least aggsize gives)
// offered 2000 keys: 976 aggregation drops, reported per CPU, and the 1024
// entries that fit.
func TestAggDrops(t *testing.T) {
	stdout, stderr := runSonde(t, "-q", "-x", "aggsize=1",
		"-n", `syscall::write:entry /pid == $target && arg0 == 1/ { @[n++] = count(); }
END { printa("%@d\n", @); }`,
		"-c", ddWrites(2000))
	if got := total(aggDropLine, stderr); got != 976 {
		t.Errorf("%d aggregation drops reported, want 976\nstderr:\n%s", got, stderr)
	}
	if got := bytes.Count([]byte(stdout), []byte("1\n")); got != 1024 {
		t.Errorf("%d entries printed, want 1024", got)
	}
}
