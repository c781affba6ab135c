package test

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// A real project's --enable-dtrace build with DTRACE=sonde: memcached,
// from Debian's source package, whose Makefile runs `sonde -h` on its
// provider and `sonde -G` on its objects (examples/memcached). Its probes
// are listed, and fire with their arguments while a client sets and gets
// a key.
func TestMemcachedDtraceBuild(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	work := filepath.Join(t.TempDir(), "memcached")
	cmd := exec.CommandContext(ctx, "sh", "../examples/memcached/build-and-trace.sh", sonde, work)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, tail(string(out), 4000))
	}
	s := string(out)
	if !regexp.MustCompile(`(?m)^\d+:.* -G `).MatchString(s) {
		t.Errorf("the build did not run sonde -G:\n%s", s)
	}
	m := regexp.MustCompile(`(?m)^probes: (\d+)$`).FindStringSubmatch(s)
	if n, _ := strconv.Atoi(m1(m)); n < 30 {
		t.Errorf("memcached's probes listed: %q, want its provider's (about 40)\n%s", m1(m), s)
	}
	// the value's 5 bytes and memcached's CRLF; -1 for a key not found
	for _, want := range []string{`(?m)^set sonde-key, 7 bytes$`, `(?m)^get sonde-key, 7 bytes$`, `(?m)^get missing-key, -1 bytes$`,
		`(?m)^connections [1-9]\d*, hash lookups>0 1$`} {
		if !regexp.MustCompile(want).MatchString(s) {
			t.Errorf("trace lacks %s:\n%s", want, s)
		}
	}
}

func m1(m []string) string {
	if len(m) < 2 {
		return ""
	}
	return m[1]
}
