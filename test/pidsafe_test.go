package test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/sym"
)

// pySafe is the traced program: it prints what it computes, and searches
// bytes with memchr (bytes.find of one byte, on 16 to 39 bytes) besides
// Python's own start-up's calls to it. The sum is of 10**4 numbers, not
// 10**6: each adds two firings (the range iterator's entry and return),
// and a million of them take a minute.
const pySafe = `print(sum(range(10**4)), sum((b"x"*n+b"y").find(b"y") for n in range(16, 40)))`

// avx2Tunables makes glibc choose its AVX2 string functions
// (__memchr_avx2...) on any CPU with AVX2, the EVEX ones of AVX-512 CPUs
// and the RTM ones included: those with vzeroupper, which a decoder took
// for 4 bytes long and so placed a return probe inside the instruction
// after it.
const avx2Tunables = "glibc.cpu.hwcaps=-AVX512VL,-AVX512BW,-AVX512F,-RTM,-Prefer_No_VZEROUPPER"

// exitNotice reads how -c's command ended from sonde's notice on stderr,
// in the terms of describeExit.
var exitNotice = regexp.MustCompile(`pid \d+ (has exited|exited with status (\d+)|terminated by (\w+))`)

// describeExit says how an untraced command ended: "status N" or "SIGNAME".
func describeExit(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return "status 0"
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("running python3: %v", err)
	}
	if ee.ExitCode() >= 0 {
		return fmt.Sprintf("status %d", ee.ExitCode())
	}
	return strings.TrimSpace(ee.String()[len("signal: "):])
}

// TestPidReturnSafe traces every function of python3 (its libc, libm and
// the others) at entry and return, and checks that Python prints and exits
// exactly as untraced: a return probe placed inside an instruction (glibc's
// __memchr_avx2, decoded with vzeroupper 4 bytes long) changed what it
// computed or killed it with SIGSEGV.
func TestPidReturnSafe(t *testing.T) {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s: %v (Debian's python3 package)", python, err)
	}
	libc, err := sym.OpenFile("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		t.Fatal(err)
	}
	if libc.DebugFile == "" {
		t.Fatal("libc has no separate debug symbols: install libc6-dbg, without which __memchr_avx2 and its kind are not functions the pid provider knows")
	}
	env := append(os.Environ(), "GLIBC_TUNABLES="+avx2Tunables)

	untraced := exec.Command(python, "-c", pySafe)
	untraced.Env = env
	want, err := untraced.Output()
	wantExit := describeExit(t, err)

	out := filepath.Join(t.TempDir(), "agg")
	script := `pid$target:::entry,pid$target:::return { @n = count(); }
pid$target::__memchr_avx2:return { @m = count(); }
END { printa("calls %@d\n", @n); printa("memchr_avx2 returns %@d\n", @m); }`
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	traced := exec.CommandContext(ctx, sonde, "-q", "-o", out, "-n", script, "-c", python+" -c '"+pySafe+"'")
	traced.Env = env
	var stdout, stderr bytes.Buffer
	traced.Stdout, traced.Stderr = &stdout, &stderr
	if err := traced.Run(); err != nil {
		t.Fatalf("sonde: %v\nstderr:\n%s", err, stderr.String())
	}
	m := exitNotice.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no exit notice from sonde; stderr:\n%s", stderr.String())
	}
	gotExit := "status 0"
	switch {
	case m[2] != "":
		gotExit = "status " + m[2]
	case m[3] != "":
		gotExit = m[3]
	}
	if gotExit != wantExit || stdout.String() != string(want) {
		t.Errorf("traced, python3 printed %q and ended with %s; untraced, %q and %s\nstderr:\n%s",
			stdout.String(), gotExit, want, wantExit, stderr.String())
	}
	agg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", agg)
	if !bytes.Contains(agg, []byte("calls ")) {
		t.Errorf("no probe fired: %q", agg)
	}
	if cpuHas("avx2") && cpuHas("bmi2") && !bytes.Contains(agg, []byte("memchr_avx2 returns ")) {
		t.Errorf("__memchr_avx2 did not return through a probe: the test did not run glibc's AVX2 code: %q", agg)
	}
}

// cpuHas reports whether /proc/cpuinfo lists the flag.
func cpuHas(flag string) bool {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "flags"); ok {
			return strings.Contains(rest+" ", " "+flag+" ")
		}
	}
	return false
}
