package test

import (
	"regexp"
	"strings"
	"testing"
)

// TestClearLosesNothing: printa() then clear() every 10 ms while dd makes
// 1,000,000 writes. What the intervals print adds up to every write,
// exactly: clear() took away what printa() had printed and not the events
// that fired between printa()'s read of the kernel's values and their
// zeroing (thousands lost a run, up to 1.3%, when clear() zeroed them).
func TestClearLosesNothing(t *testing.T) {
	const n = 1000000
	stdout, _ := runSonde(t, "-q", "-n", `
syscall::write:entry /pid == $target && arg0 == 1/ {
	@c = count(); @k[probefunc] = count(); @s = sum(arg2); @q = quantize(arg2); @a = avg(arg2);
}
tick-10ms, END {
	printa("c %@d\n", @c); printa("k %s %@d\n", @k); printa("s %@d\n", @s); printa("a %@d\n", @a);
	printa(@q);
	clear(@c); clear(@k); clear(@s); clear(@q); clear(@a);
}`, "-c", ddWrites(n))
	// avg() of writes of one byte is 1 in every interval that had any.
	for _, m := range regexp.MustCompile(`(?m)^a (-?\d+)$`).FindAllStringSubmatch(stdout, -1) {
		if m[1] != "1" && m[1] != "0" {
			t.Errorf("avg() of one-byte writes printed %s", m[1])
		}
	}
	addsUp(t, stdout, n, []totalOf{
		{"count() without keys", regexp.MustCompile(`(?m)^c (\d+)$`)},
		{"count() by probefunc", regexp.MustCompile(`(?m)^k write (\d+)$`)},
		{"sum() of one-byte writes", regexp.MustCompile(`(?m)^s (\d+)$`)},
		{"quantize()'s bucket 1", regexp.MustCompile(`(?m)^ +1 \|@* +(\d+) *$`)},
	})
}

// TestTruncLosesNothing: printa() then trunc() every 10 ms while dd makes
// 1,000,000 writes. trunc() removes the kernel's entries (so that keys come
// and go as in DTrace), but the events that fired between printa()'s read
// and the removal belong to the next interval, as with DTrace's buffer
// switch: the intervals add up to every write (0.15–0.25% were lost when
// trunc() deleted the entries after printa() had read them).
func TestTruncLosesNothing(t *testing.T) {
	const n = 1000000
	stdout, _ := runSonde(t, "-q", "-n", `
syscall::write:entry /pid == $target && arg0 == 1/ {
	@c = count(); @k[probefunc] = count(); @r[timestamp % 4] = count(); @s[probefunc] = sum(arg2); @q[probefunc] = quantize(arg2);
}
tick-10ms, END {
	printa("c %@d\n", @c); printa("k %s %@d\n", @k); printa("r %d %@d\n", @r); printa("s %s %@d\n", @s);
	printa(@q);
	trunc(@c); trunc(@k); trunc(@r); trunc(@s); trunc(@q);
}`, "-c", ddWrites(n))
	addsUp(t, stdout, n, []totalOf{
		{"count() without keys", regexp.MustCompile(`(?m)^c (\d+)$`)},
		{"count() by probefunc", regexp.MustCompile(`(?m)^k write (\d+)$`)},
		{"count() by timestamp % 4", regexp.MustCompile(`(?m)^r \d (\d+)$`)},
		{"sum() of one-byte writes", regexp.MustCompile(`(?m)^s write (\d+)$`)},
		{"quantize()'s bucket 1", regexp.MustCompile(`(?m)^ +1 \|@* +(\d+) *$`)},
	})
}

// totalOf is what one regexp's matches in the intervals add up to.
type totalOf struct {
	what string
	re   *regexp.Regexp
}

// addsUp checks that each of totals adds up to n over the intervals
// stdout printed (the lines starting "c " are one an interval).
func addsUp(t *testing.T, stdout string, n int, totals []totalOf) {
	t.Helper()
	for _, c := range totals {
		if got := total(c.re, stdout); got != n {
			t.Errorf("%s: the intervals add up to %d, want %d", c.what, got, n)
		}
	}
	if t.Failed() {
		t.Logf("stdout (tail):\n%s", tail(stdout, 3000))
	}
	if !strings.Contains(stdout, "c ") {
		t.Fatal("no interval printed")
	}
}
