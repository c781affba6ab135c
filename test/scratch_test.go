package test

import (
	"regexp"
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
