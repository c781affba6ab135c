package insn

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/sym"
)

// dump is what objdump -d shows of an object: the address of every
// instruction, whether it shows it as "(bad)", and the sections it
// disassembles.
type dump struct {
	addrs    []uint64 // ascending
	bad      map[uint64]bool
	rets     map[uint64]bool // ret, ret $n, repz ret, bnd ret
	sections []string
}

// runObjdump disassembles path with objdump -d (-z: blocks of zeros too).
func runObjdump(t *testing.T, path string) dump {
	t.Helper()
	out, err := exec.Command("objdump", "-d", "-z", "-w", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("objdump -d %s: %v", path, err)
	}
	d := dump{bad: map[uint64]bool{}, rets: map[uint64]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if s, ok := strings.CutPrefix(line, "Disassembly of section "); ok {
			d.sections = append(d.sections, strings.TrimSuffix(s, ":"))
			continue
		}
		addr, text, ok := strings.Cut(strings.TrimLeft(line, " "), ":\t")
		if !ok {
			continue
		}
		a, err := strconv.ParseUint(addr, 16, 64)
		if err != nil {
			continue
		}
		if n := len(d.addrs); n > 0 && d.addrs[n-1] >= a {
			t.Fatalf("%s: objdump's addresses are not ascending at %#x", path, a)
		}
		d.addrs = append(d.addrs, a)
		if strings.Contains(text, "(bad)") {
			d.bad[a] = true
		}
		if f := strings.Fields(text); len(f) > 0 && isRet(f[0]) || len(f) > 1 && isRet(f[1]) {
			d.rets[a] = true
		}
	}
	if len(d.addrs) == 0 {
		t.Fatalf("objdump -d %s: no instructions", path)
	}
	return d
}

func isRet(mnemonic string) bool { return mnemonic == "ret" || mnemonic == "retq" }

// systemObjects returns the objects whose every instruction TestObjdump
// compares: libc, libstdc++, libm and libpython.
func systemObjects(t *testing.T) []string {
	const dir = "/lib/x86_64-linux-gnu/"
	paths := []string{dir + "libc.so.6", dir + "libstdc++.so.6", dir + "libm.so.6"}
	py, _ := filepath.Glob(dir + "libpython3.*.so.*")
	if len(py) == 0 {
		t.Errorf("no %slibpython3.*.so.*: install libpython3.11 (Debian 12)", dir)
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range append(paths, py...) {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, p)
		}
	}
	return out
}

// vdsoFile writes this process's vDSO, read from /proc/self/mem at its
// mapping, to a file in dir and returns its path.
func vdsoFile(t *testing.T, dir string) string {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		if !strings.HasSuffix(line, "[vdso]") {
			continue
		}
		var lo, hi uint64
		if _, err := fmt.Sscanf(line, "%x-%x", &lo, &hi); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		mem, err := os.Open("/proc/self/mem")
		if err != nil {
			t.Fatal(err)
		}
		defer mem.Close()
		b := make([]byte, hi-lo)
		if _, err := mem.ReadAt(b, int64(lo)); err != nil {
			t.Fatalf("reading the vDSO: %v", err)
		}
		p := filepath.Join(dir, "vdso.so")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Fatal("no [vdso] in /proc/self/maps")
	return ""
}

// TestObjdump decodes every instruction of the system's libc, libstdc++,
// libm, libpython and vDSO and compares its length with objdump -d's (the
// distance to the next instruction objdump shows), then decodes every
// function of their symbol tables (with the separate debug files' ones,
// when installed: libc6-dbg) with Boundaries and compares its instruction
// starts with objdump's.
func TestObjdump(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("not amd64")
	}
	if _, err := exec.LookPath("objdump"); err != nil {
		t.Fatal("objdump is needed (binutils)")
	}
	paths := append(systemObjects(t), vdsoFile(t, t.TempDir()))
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			d := runObjdump(t, p)
			ef, err := elf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer ef.Close()
			n, diffs := compareInsns(t, ef, d)
			c := compareFuncs(t, p, ef, d)
			t.Logf("%s: %d instructions, %d differ from objdump's; %d functions, %d differ, %d not compared; %d rets, %d differ",
				p, n, diffs, c.funcs, c.diffs, c.skipped, c.rets, c.retDiffs)
		})
	}
}

// compareInsns checks the length of every instruction objdump shows.
func compareInsns(t *testing.T, ef *elf.File, d dump) (n, diffs int) {
	for _, name := range d.sections {
		sec := ef.Section(name)
		if sec == nil || sec.Type == elf.SHT_NOBITS {
			t.Errorf("objdump disassembles %s, not in the ELF file", name)
			continue
		}
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		lo, _ := slices.BinarySearch(d.addrs, sec.Addr)
		hi, _ := slices.BinarySearch(d.addrs, sec.Addr+sec.Size)
		for i := lo; i < hi; i++ {
			a := d.addrs[i]
			next := sec.Addr + sec.Size
			if i+1 < hi {
				next = d.addrs[i+1]
			}
			n++
			in, err := decodeAMD64(data[a-sec.Addr:])
			switch {
			case d.bad[a] && err != nil:
			case err != nil:
				diffs++
				t.Errorf("%s %#x: %v; objdump: %d bytes (% x)", name, a, err, next-a, data[a-sec.Addr:next-sec.Addr])
			case d.bad[a]:
				diffs++
				t.Errorf("%s %#x: %d bytes; objdump: (bad)", name, a, in.Len)
			case uint64(in.Len) != next-a:
				diffs++
				t.Errorf("%s %#x: %d bytes; objdump: %d bytes (% x)", name, a, in.Len, next-a, data[a-sec.Addr:min(next, a+15)-sec.Addr])
			}
		}
	}
	if n == 0 {
		t.Error("no instruction compared")
	}
	return n, diffs
}

// funcCounts counts what compareFuncs compared.
type funcCounts struct {
	funcs, diffs, skipped, rets, retDiffs int
}

// compareFuncs checks Boundaries over every function of the object at p
// whose start objdump shows as an instruction's (it starts afresh at each
// symbol it knows, but not at the ones of a separate debug file), and
// that ReturnSites finds every ret objdump shows in it, and only those.
func compareFuncs(t *testing.T, p string, ef *elf.File, d dump) funcCounts {
	var c funcCounts
	sf, err := sym.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	last := uint64(0)
	for _, s := range sf.Symbols() {
		if s.Value == last {
			continue
		}
		last = s.Value
		sec := sectionAt(ef, s.Value)
		if sec == nil || s.End() > sec.Addr+sec.Size {
			continue
		}
		i, ok := slices.BinarySearch(d.addrs, s.Value)
		if !ok {
			c.skipped++
			t.Logf("%s at %#x: objdump shows no instruction there", s.Name, s.Value)
			continue
		}
		c.funcs++
		code := make([]byte, s.Size)
		if _, err := sec.ReadAt(code, int64(s.Value-sec.Addr)); err != nil {
			t.Fatal(err)
		}
		var want, wantRets []uint64
		for ; i < len(d.addrs) && d.addrs[i] < s.End(); i++ {
			want = append(want, d.addrs[i]-s.Value)
			if d.rets[d.addrs[i]] {
				wantRets = append(wantRets, d.addrs[i]-s.Value)
			}
		}
		f := Func{Addr: s.Value, Code: code}
		got, err := Boundaries("amd64", f)
		if err != nil || !slices.Equal(got, want) {
			c.diffs++
			t.Errorf("%s: Boundaries: %d instructions, %v; objdump: %d (first difference at %#x)", s.Name, len(got), err, len(want), firstDiff(got, want))
		}
		sites, _ := ReturnSites("amd64", f)
		var rets []uint64
		for _, site := range sites {
			if site.Kind == Ret {
				rets = append(rets, site.Off)
			}
		}
		c.rets += len(wantRets)
		if !slices.Equal(rets, wantRets) {
			c.retDiffs++
			t.Errorf("%s: ReturnSites has rets at %#x; objdump at %#x", s.Name, rets, wantRets)
		}
	}
	return c
}

func firstDiff(a, b []uint64) uint64 {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return min(a[i], b[i])
		}
	}
	if len(a) < len(b) {
		return b[len(a)]
	}
	if len(b) < len(a) {
		return a[len(b)]
	}
	return 0
}

// sectionAt returns the executable section holding vaddr.
func sectionAt(ef *elf.File, vaddr uint64) *elf.Section {
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS && vaddr >= s.Addr && vaddr < s.Addr+s.Size {
			return s
		}
	}
	return nil
}
