package usdtprov_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/usdtprov"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

// The family: a provider name ending in a process ID (python$target once
// the macro is expanded), or a glob other than *; never pid<N>.
func TestServes(t *testing.T) {
	p := &usdtprov.Provider{}
	for _, c := range []struct {
		name string
		want bool
	}{
		{"python123", true}, {"libstdcxx42", true}, {"python*", true}, {"*sql*", true}, {"http?1", true},
		{"python", false}, {"123", false}, {"python0", false}, {"pid123", false}, {"pid*", false},
		{"*", false}, {"", false}, {"python$target", false},
	} {
		if got := p.Serves(provider.Desc{Provider: c.name}); got != c.want {
			t.Errorf("Serves(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPythonProbes(t *testing.T) {
	n := runtimetest.Spawn(t, "python3", "/usr/bin/python3", "-c", "import time; time.sleep(1000)")
	prov := "python" + strconv.Itoa(n)
	p := &usdtprov.Provider{}
	ps, err := p.Probes(provider.Desc{Provider: prov})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*provider.Probe{}
	seen := map[uint32]bool{}
	for _, q := range ps {
		names[q.Name] = q
		if q.Provider != prov || !strings.HasPrefix(q.Module, "python3") {
			t.Errorf("probe %s", q.FullName())
		}
		if q.Hook != (provider.Hook{Kind: provider.HookUprobe, Name: "usdt", PID: n}) || len(q.Sites) == 0 {
			t.Errorf("%s: hook %s, %d sites", q.FullName(), q.Hook, len(q.Sites))
		}
		if q.ID >= usdtprov.MaxProbes || seen[q.ID] {
			t.Errorf("%s: local ID %d repeated or outside [0, %d)", q.FullName(), q.ID, usdtprov.MaxProbes)
		}
		seen[q.ID] = true
	}
	// DTrace's names: __ in the note becomes -
	for _, want := range []string{"gc-start", "gc-done", "function-entry", "function-return", "line",
		"import-find-load-start", "import-find-load-done", "audit"} {
		if names[want] == nil {
			t.Errorf("%s::: has no %s (has %v)", prov, want, names)
		}
	}
	gc := names["gc-start"]
	if gc != nil {
		if len(gc.Args) != 1 || gc.Args[0].Type != "int32_t" {
			t.Errorf("gc-start args %+v, want one int32_t (-4@ in the note)", gc.Args)
		}
		if gc.Sites[0].RefCtr == 0 || gc.Sites[0].PID != n {
			t.Errorf("gc-start site %+v: Python's probes have semaphores", gc.Sites[0])
		}
	}
	again, err := p.Probes(provider.Desc{Provider: prov, Name: "gc-start"})
	if err != nil || len(again) != 1 || gc == nil || again[0].ID != gc.ID {
		t.Errorf("gc-start again: %v, %v", again, err)
	}
	if globbed, err := p.Probes(provider.Desc{Provider: "pyth*", Name: "gc-start"}); err != nil || !has(globbed, prov) {
		t.Errorf("pyth*:::gc-start: %d probes (%v), none of %s", len(globbed), err, prov)
	}
}

func has(ps []*provider.Probe, prov string) bool {
	for _, p := range ps {
		if p.Provider == prov {
			return true
		}
	}
	return false
}

// A process that is not there, and one without any USDT probe (-Z makes
// the latter match nothing, so it wraps ErrNoProbes).
func TestErrors(t *testing.T) {
	p := &usdtprov.Provider{}
	if _, err := p.Probes(provider.Desc{Provider: "python999999999"}); err == nil || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("python999999999: %v", err)
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "bare.c"), filepath.Join(dir, "bare")
	if err := os.WriteFile(src, []byte("void _start(void) { for (;;) __asm__ volatile(\"mov $34, %eax; syscall\"); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-static", "-nostdlib", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	n := runtimetest.Spawn(t, "bare", bin)
	_, err := p.Probes(provider.Desc{Provider: "bare" + strconv.Itoa(n)})
	if !errors.Is(err, provider.ErrNoProbes) || !strings.Contains(err.Error(), "has no USDT probes") {
		t.Errorf("a process without USDT probes: %v, want ErrNoProbes", err)
	}
}

// Attached with its semaphore set: gc.collect() fires gc-start with the
// generation it collects, 2, read from the note's argument specification.
func TestFire(t *testing.T) {
	n := runtimetest.Spawn(t, "python3", "/usr/bin/python3", "-c", "import gc, time\nwhile True:\n    gc.collect()\n    time.sleep(0.001)")
	p := &usdtprov.Provider{}
	ps, err := p.Probes(provider.Desc{Provider: "python" + strconv.Itoa(n), Name: "gc-*"})
	if err != nil || len(ps) != 2 {
		t.Fatalf("gc-*: %v, %v", ps, err)
	}
	start := ps[0]
	if start.Name != "gc-start" {
		start = ps[1]
	}
	l := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: start.Hook, Probes: ps, Want: []*provider.Probe{start},
		Needs: provider.Needs{Args: [10]bool{true, true}}, PID: n})
	deadline := time.Now().Add(time.Minute)
	for full := 0; full == 0; {
		if time.Now().After(deadline) {
			t.Fatal("gc-start did not fire for generation 2 in a python3 calling gc.collect()")
		}
		time.Sleep(10 * time.Millisecond)
		for _, f := range l.Firings(t) {
			// (Python also collects generations 0 and 1 by itself)
			if f.ID != uint64(start.ID) || f.Args[0] > 2 || f.Args[1] != 0 {
				t.Errorf("%s: ID %d args %d %d, want %d, a generation (0-2) and 0 (the guard passes only gc-start)", start.FullName(), f.ID, f.Args[0], f.Args[1], start.ID)
			}
			if f.Args[0] == 2 {
				full++
			}
		}
	}
}
