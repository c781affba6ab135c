package test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestScratchPerProgram: a profile probe's program interrupts the syscall
// probe's on the same CPU thousands of times while dd makes 300,000
// writes. Each program has its own scratch entry, so the syscall clause's
// probe context (probe ID, arguments, timestamp) is never the profile
// probe's: every write is counted under syscall::write:entry, with its
// own arguments. With one shared entry, a few writes a run were counted as
// profile:::tick-10ms (the interrupting program had overwritten the probe
// ID the clause was about to record).
func TestScratchPerProgram(t *testing.T) {
	const n = 300000
	stdout, _ := runSonde(t, "-q", "-n", `
syscall::write:entry /pid == $target && arg0 == 1/ {
	@[probeprov, probefunc, probename, arg0, arg2] = count();
}
profile-4999 { @p = count(); }
tick-10ms { @t = count(); }
END { printa("%s:%s:%s fd %d size %d: %@d\n", @); }`, "-c", ddWrites(n))
	want := "syscall:write:entry fd 1 size 1: "
	lines := regexp.MustCompile(`(?m)^.+: \d+$`).FindAllString(stdout, -1)
	if got := total(regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(want)+`(\d+)$`), stdout); got != n || len(lines) != 1 {
		t.Errorf("want one line %s%d, got:\n%s", want, n, strings.Join(lines, "\n"))
	}
}

// TestAggAddsAtomic: the same aggregations updated by a syscall probe and
// by a profile probe, whose program interrupts the other's on its CPU.
// Every update of either is counted: count() and sum() equal the writes
// plus the samples, and quantize()'s bucket holds both. A load, add and
// store of the per-CPU value lost the interrupting program's increments
// (10 to 24 a run of 1,000,000 writes).
func TestAggAddsAtomic(t *testing.T) {
	const n = 1000000
	stdout, _ := runSonde(t, "-q", "-n", `
syscall::write:entry /pid == $target && arg0 == 1/ {
	@c = count(); @s = sum(arg2); @q = lquantize(arg2, 0, 2, 1); @w = count();
}
profile-4999 { @c = count(); @s = sum(1); @q = lquantize(1, 0, 2, 1); @p = count(); }
END { printa("c %@d\n", @c); printa("s %@d\n", @s); printa("w %@d\n", @w); printa("p %@d\n", @p); printa(@q); }`, "-c", ddWrites(n))
	num := func(re string) int { return total(regexp.MustCompile(`(?m)^`+re+`$`), stdout) }
	w, p := num(`w (\d+)`), num(`p (\d+)`)
	if w != n {
		t.Fatalf("%d writes counted, want %d:\n%s", w, n, stdout)
	}
	for _, c := range []struct{ what, re string }{
		{"count()", `c (\d+)`},
		{"sum()", `s (\d+)`},
		{"lquantize()'s bucket 1", ` +1 \|@* +(\d+) *`},
	} {
		if got := num(c.re); got != w+p {
			t.Errorf("%s: %d, want the %d writes and %d samples, %d", c.what, got, w, p, w+p)
		}
	}
}

// TestAggExtremesAtomic: min() and max() updated by a syscall probe and by
// a profile probe whose program interrupts the other's on its CPU. Each
// key g is offered increasing values by dd's writes (k, -k) until a
// profile sample of dd's offers the extremes 2^40 and -2^40 under it and
// moves on to key g+1: every key a sample offered must end with the
// sample's extremes. A load, compare and store of the extreme lost the
// sample's when it landed between the write's load and store (9 to 20
// keys of 4,000 to 13,000 a run of 1,000,000 writes, over the four
// aggregations).
func TestAggExtremesAtomic(t *testing.T) {
	const n = 1000000
	const big = 1 << 40
	stdout, stderr := runSonde(t, "-q", "-n", `
int64_t g, k;
syscall::write:entry /pid == $target && arg0 == 1/ {
	@a[g] = max(k); @b[g] = min(-k); @c[g] = max(k); @d[g] = min(-k); k++;
}
profile-4999 /pid == $target/ {
	@a[g] = max(`+strconv.Itoa(big)+`); @b[g] = min(-`+strconv.Itoa(big)+`);
	@c[g] = max(`+strconv.Itoa(big)+`); @d[g] = min(-`+strconv.Itoa(big)+`);
	@p[g] = count(); g++;
}
END { printa("a %d %@d\n", @a); printa("b %d %@d\n", @b); printa("c %d %@d\n", @c); printa("d %d %@d\n", @d); printa("p %d %@d\n", @p); }`, "-c", ddWrites(n))
	vals := map[string]map[int64]int64{}
	for _, m := range regexp.MustCompile(`(?m)^([abcdp]) (-?\d+) (-?\d+)$`).FindAllStringSubmatch(stdout, -1) {
		g, _ := strconv.ParseInt(m[2], 10, 64)
		v, _ := strconv.ParseInt(m[3], 10, 64)
		if vals[m[1]] == nil {
			vals[m[1]] = map[int64]int64{}
		}
		vals[m[1]][g] = v
	}
	if len(vals["p"]) < 100 {
		t.Fatalf("%d keys sampled, want many more\nstderr:\n%s", len(vals["p"]), tail(stderr, 2000))
	}
	// A sample that lands while the write probe's program inserts a key
	// into the same map on its CPU cannot insert its own new key (the
	// kernel's hash map answers EBUSY to an update nested in another on
	// one CPU): that update is dropped and counted, and sonde reports it.
	// Such reported drops may account for sampled keys without their
	// extreme (4 in one run of the suite); an extreme lost without a drop
	// reported is the bug this test is for.
	drops := 0
	for _, m := range regexp.MustCompile(`(\d+) aggregation drops? on CPU`).FindAllStringSubmatch(stderr, -1) {
		n, _ := strconv.Atoi(m[1])
		drops += n
	}
	lostAll := 0
	var lostSome []string
	for _, c := range []struct {
		agg  string
		want int64
	}{{"a", big}, {"b", -big}, {"c", big}, {"d", -big}} {
		for g := range vals["p"] {
			if got := vals[c.agg][g]; got != c.want {
				lostAll++
				lostSome = append(lostSome, fmt.Sprintf("@%s[%d] = %d (want %d)", c.agg, g, got, c.want))
			}
		}
	}
	if lostAll > drops {
		t.Errorf("%d extremes of %d sampled keys lost, %d aggregation drops reported: %s\nstderr: %s",
			lostAll, len(vals["p"]), drops, strings.Join(lostSome[:min(len(lostSome), 5)], ", "), stderr)
	}
	if drops > len(vals["p"])/100 {
		t.Errorf("%d aggregation drops for %d samples: %s", drops, len(vals["p"]), stderr)
	}
}
