package pid_test

import (
	"debug/elf"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/pid"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
)

func TestServes(t *testing.T) {
	p := &pid.Provider{}
	for _, c := range []struct {
		name string
		want bool
	}{
		{"pid123", true}, {"pid1", true},
		{"pid", false}, {"pid0", false}, {"pid0123", false}, {"pid12a", false}, {"pid-1", false},
		{"pid*", false}, {"pidx", false}, {"python123", false}, {"syscall", false}, {"", false},
	} {
		if got := p.Serves(provider.Desc{Provider: c.name}); got != c.want {
			t.Errorf("Serves(%q) = %v, want %v", c.name, got, c.want)
		}
	}
	if ps, err := p.Probes(provider.Desc{Provider: "pid", Name: "entry"}); ps != nil || err != nil {
		t.Errorf("pid:::entry: %v, %v", ps, err)
	}
}

// fileOffset reads the file offset of the function sym in the ELF file
// path, from its dynamic symbols and program headers.
func fileOffset(t *testing.T, path, sym string) (uint64, uint64) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name != sym || elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		for _, pr := range f.Progs {
			if pr.Type == elf.PT_LOAD && s.Value >= pr.Vaddr && s.Value < pr.Vaddr+pr.Filesz {
				return s.Value - pr.Vaddr + pr.Off, s.Size
			}
		}
	}
	t.Fatalf("%s has no function %s", path, sym)
	return 0, 0
}

func TestProbes(t *testing.T) {
	n := runtimetest.Spawn(t, "libc.so", "sleep", "1000")
	prov := "pid" + strconv.Itoa(n)
	p := &pid.Provider{}
	ps := providertest.Probes(t, p, provider.Desc{Provider: prov, Function: "malloc"})
	if len(ps) != 2 || ps[0].Name != "entry" || ps[1].Name != "return" {
		t.Fatalf("%s::malloc: %v", prov, ps)
	}
	entry, ret := ps[0], ps[1]
	if entry.Provider != prov || entry.Module != "libc.so.6" || entry.Function != "malloc" {
		t.Errorf("probe %s", entry.FullName())
	}
	if entry.Hook != (provider.Hook{Kind: provider.HookUprobe, Name: "entry", PID: n}) || ret.Hook.Name != "return" {
		t.Errorf("hooks %s, %s", entry.Hook, ret.Hook)
	}
	if len(entry.Sites) != 1 || entry.Sites[0].PID != n {
		t.Fatalf("malloc:entry sites %+v", entry.Sites)
	}
	path := entry.Sites[0].Path
	off, size := fileOffset(t, path, "malloc")
	if entry.Sites[0].Offset != off {
		t.Errorf("malloc:entry at file offset %#x, the symbol table says %#x", entry.Sites[0].Offset, off)
	}
	code, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ret.Sites) == 0 {
		t.Fatal("malloc:return has no sites")
	}
	for _, s := range ret.Sites {
		if s.Offset != off+uint64(s.Extra) || uint64(s.Extra) >= size || s.PID != n {
			t.Errorf("malloc:return site %+v: not in malloc (%#x, %d bytes)", s, off, size)
		}
		switch op := code[s.Offset]; op {
		case 0xc3, 0xc2, 0xe9, 0xeb, 0xff, 0xf3, 0xf2: // ret, jmp (a tail call), with prefixes
		default:
			t.Errorf("malloc:return site at +%#x is opcode %#x, not a return", s.Extra, op)
		}
	}
	// offset probes: hexadecimal names, on instruction boundaries only
	o := providertest.Probes(t, p, provider.Desc{Provider: prov, Function: "malloc", Name: "0"})
	if len(o) != 1 || o[0].Name != "0" || o[0].Sites[0].Offset != off || o[0].Hook.Name != "offset" {
		t.Errorf("malloc:0: %+v", o)
	}
	if _, err := p.Probes(provider.Desc{Provider: prov, Function: "malloc", Name: "1"}); err == nil || !strings.Contains(err.Error(), "inside the instruction") {
		t.Errorf("malloc:1 (inside malloc's first instruction): %v", err)
	}
	// the same probe keeps its ID; IDs are distinct and in range
	again := providertest.Probes(t, p, provider.Desc{Provider: prov, Module: "libc.so.6", Function: "malloc", Name: "entry"})
	if len(again) != 1 || again[0].ID != entry.ID {
		t.Errorf("malloc:entry again: %+v (ID %d before)", again, entry.ID)
	}
	all := providertest.Probes(t, p, provider.Desc{Provider: prov, Module: "libc.so.6"})
	seen := map[uint32]string{}
	for _, q := range all {
		if q.ID >= pid.MaxProbes {
			t.Errorf("%s: local ID %d outside [0, %d)", q.FullName(), q.ID, pid.MaxProbes)
		}
		if other, ok := seen[q.ID]; ok {
			t.Errorf("%s and %s share local ID %d", other, q.FullName(), q.ID)
		}
		seen[q.ID] = q.FullName()
	}
	if len(all) < 1000 {
		t.Errorf("%s:libc.so.6:: has %d probes", prov, len(all))
	}
	py := "pid" + strconv.Itoa(runtimetest.Spawn(t, "libc.so", "/usr/bin/python3", "-c", "import time; time.sleep(1000)"))
	if ps := providertest.Probes(t, p, provider.Desc{Provider: py, Module: "a.out", Function: "Py_Initialize", Name: "entry"}); len(ps) != 1 || !strings.HasPrefix(ps[0].Module, "python3") {
		t.Errorf("%s:a.out:Py_Initialize:entry: %v, want the function of the main executable, python3.x", py, ps)
	}
	if _, err := p.Probes(provider.Desc{Provider: "pid999999999", Name: "entry"}); err == nil || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("pid999999999: %v", err)
	}
}

// Attached to a python3 sleeping in a loop: clock_nanosleep's arguments at
// entry, the return site and value at return; the guard lets through only
// the probes a clause enables.
func TestFire(t *testing.T) {
	n := runtimetest.Spawn(t, "libc.so", "/usr/bin/python3", "-c", "import time\nwhile True: time.sleep(0.0005)")
	prov := "pid" + strconv.Itoa(n)
	p := &pid.Provider{}
	sleep := providertest.Probes(t, p, provider.Desc{Provider: prov, Module: "libc.so.6", Function: "clock_nanosleep"})
	now := providertest.Probes(t, p, provider.Desc{Provider: prov, Module: "libc.so.6", Function: "clock_gettime", Name: "entry"})
	if len(sleep) != 2 || len(now) != 1 {
		t.Fatalf("clock_nanosleep: %d probes, clock_gettime:entry %d", len(sleep), len(now))
	}
	needs := provider.Needs{Args: [10]bool{true, true, true, true, true, true, true}}
	both := []*provider.Probe{sleep[0], now[0]}
	le := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: sleep[0].Hook, Probes: both, Want: both[:1], Needs: needs, PID: n})
	lr := runtimetest.Load(t, runtimetest.Spec{Provider: p, Hook: sleep[1].Hook, Probes: sleep[1:], Needs: needs, PID: n})
	extras := map[uint64]bool{}
	for _, s := range sleep[1].Sites {
		extras[uint64(s.Extra)] = true
	}
	var entries, returns int
	deadline := time.Now().Add(time.Minute)
	for entries == 0 || returns == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d firings of clock_nanosleep:entry and %d of :return in a minute", entries, returns)
		}
		time.Sleep(10 * time.Millisecond)
		for _, f := range le.Firings(t) {
			entries++
			if f.ID != uint64(sleep[0].ID) {
				t.Fatalf("entry: probe ID %d passed a guard for %d (clock_gettime is %d)", f.ID, sleep[0].ID, now[0].ID)
			}
			if f.Args[0] != 1 || f.Args[1] != 1 || f.Args[2] == 0 || f.Args[3] != 0 {
				t.Errorf("clock_nanosleep:entry args %#x, want CLOCK_MONOTONIC, TIMER_ABSTIME, a pointer, NULL", f.Args[:4])
			}
		}
		for _, f := range lr.Firings(t) {
			returns++
			if f.ID != uint64(sleep[1].ID) || !extras[f.Args[0]] || f.Args[1] != 0 || f.Args[2] != 0 {
				t.Errorf("clock_nanosleep:return ID %d args %#x, want %d, a return site's offset, 0, 0", f.ID, f.Args[:3], sleep[1].ID)
			}
		}
	}
}
