package sym

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkTarget checks every formatter on the address of sonde_target (and
// inside it) in a running progC.
func checkTarget(t *testing.T, u *Users, pid int, addr uint64, mod string) {
	t.Helper()
	for _, c := range []struct {
		name, got, want string
	}{
		{"FormatFrame(start)", u.FormatFrame(pid, addr), mod + "`sonde_target"},
		{"FormatFrame(start+5)", u.FormatFrame(pid, addr+5), mod + "`sonde_target+0x5"},
		{"Addr(start+5)", u.Addr(pid, addr+5), mod + "`sonde_target+0x5"},
		{"Sym(start+5)", u.Sym(pid, addr+5), mod + "`sonde_target"},
		{"Func(start+5)", u.Func(pid, addr+5), mod + "`sonde_target"},
		{"Mod(start+5)", u.Mod(pid, addr+5), mod},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	m, fn, off, ok := u.Lookup(pid, addr+5)
	if m != mod || fn != "sonde_target" || off != 5 || !ok {
		t.Errorf("Lookup = %q, %q, %#x, %v", m, fn, off, ok)
	}
}

// TestProcessExecutables resolves a function of a running program built
// as PIE, as non-PIE, and stripped with a debug link.
func TestProcessExecutables(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags []string
		strip bool
		typ   elf.Type
	}{
		{"pie", []string{"-fPIE", "-pie"}, false, elf.ET_DYN},
		{"nopie", []string{"-fno-pie", "-no-pie"}, false, elf.ET_EXEC},
		{"stripped", []string{"-fPIE", "-pie"}, true, elf.ET_DYN},
		{"stripped-nopie", []string{"-fno-pie", "-no-pie"}, true, elf.ET_EXEC},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var prog string
			if c.strip {
				prog, _ = stripWithDebugLink(t, dir, c.flags...)
			} else {
				prog = compile(t, "gcc", dir, "prog.c", progC, "prog", c.flags...)
			}
			f, err := OpenFile(prog)
			if err != nil {
				t.Fatal(err)
			}
			if f.Type != c.typ {
				t.Fatalf("type %v, want %v", f.Type, c.typ)
			}
			p := start(t, prog)
			addr := p.addrs(t)[0]
			var u Users
			if err := u.Snapshot(p.pid()); err != nil {
				t.Fatal(err)
			}
			checkTarget(t, &u, p.pid(), addr, "prog")
			// libc is mapped and named by its base name.
			if mod := u.Mod(p.pid(), uint64(libcAddr(t, p.pid()))); !strings.HasPrefix(mod, "libc") {
				t.Errorf("libc's module is %q", mod)
			}
		})
	}
}

// libcAddr returns an address in the executable mapping of libc in pid.
func libcAddr(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range parseMaps(b) {
		if m.exec && strings.HasPrefix(filepath.Base(m.path), "libc") {
			return m.start + 16
		}
	}
	t.Fatal("no libc mapping")
	return 0
}

// startPIE builds progC as a position-independent executable in a
// temporary directory, runs it, and returns the directory, the program,
// the running child and the first address it printed (in prog's text).
func startPIE(t *testing.T) (dir, prog string, p *child, addr uint64) {
	t.Helper()
	dir = t.TempDir()
	prog = compile(t, "gcc", dir, "prog.c", progC, "prog", "-fPIE", "-pie")
	p = start(t, prog)
	return dir, prog, p, p.addrs(t)[0]
}

// TestProcessExited resolves addresses of a process that has exited since
// its Snapshot, and of one whose executable was deleted before.
func TestProcessExited(t *testing.T) {
	dir, prog, p, addr := startPIE(t)
	var u Users
	now := time.Now()
	u.now = func() time.Time { return now }
	if err := u.Snapshot(p.pid()); err != nil {
		t.Fatal(err)
	}
	p.exit(t)
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.pid())); err == nil {
		t.Fatalf("pid %d still exists", p.pid())
	}
	checkTarget(t, &u, p.pid(), addr, "prog")
	// Later: the check finds the process gone, and keeps what it knew.
	now = now.Add(time.Hour)
	if err := u.Snapshot(p.pid()); err != nil {
		t.Errorf("Snapshot after exit: %v", err)
	}
	checkTarget(t, &u, p.pid(), addr, "prog")
	if got := u.FormatFrame(p.pid(), 0x10); got != "0x10" {
		t.Errorf("unmapped address: %q", got)
	}

	// A deleted executable is still read, through map_files.
	del := filepath.Join(dir, "deleted")
	b, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(del, b, 0o755); err != nil {
		t.Fatal(err)
	}
	q := start(t, del)
	addr = q.addrs(t)[0]
	if err := os.Remove(del); err != nil {
		t.Fatal(err)
	}
	var v Users
	checkTarget(t, &v, q.pid(), addr, "deleted")
}

// TestRefreshZombie checks that reading a zombie again (its address space
// is empty, but kill(pid, 0) still succeeds) keeps what was known of it:
// the consumer refreshes live targets as it polls, and a -c command it
// holds at exit is such a zombie until reaped.
func TestRefreshZombie(t *testing.T) {
	_, _, p, addr := startPIE(t)
	var u Users
	if err := u.Refresh(p.pid()); err != nil {
		t.Fatal(err)
	}
	// Kill it without reaping: a zombie.
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid()))
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); f[0] == "Z" {
			break
		}
		if i == 1000 {
			t.Fatal("child did not become a zombie")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := u.Refresh(p.pid()); err != nil {
		t.Errorf("Refresh of a zombie: %v", err)
	}
	checkTarget(t, &u, p.pid(), addr, "prog")
}

// TestUnknownProcess checks the output for a process that cannot be read.
func TestUnknownProcess(t *testing.T) {
	var u Users
	const pid = 1 << 30 // above pid_max
	if err := u.Snapshot(pid); err == nil {
		t.Error("Snapshot of no process: no error")
	}
	for _, got := range []string{u.FormatFrame(pid, 0x1234), u.Sym(pid, 0x1234), u.Mod(pid, 0x1234), u.Addr(pid, 0x1234)} {
		if got != "0x1234" {
			t.Errorf("got %q, want 0x1234", got)
		}
	}
	if mod, fn, off, ok := u.Lookup(pid, 0x1234); mod != "" || fn != "" || off != 0 || ok {
		t.Errorf("Lookup = %q, %q, %d, %v", mod, fn, off, ok)
	}
}

// TestProcessNoSymbol checks module`0xaddr for an address in a known
// object with no symbol for it: a stripped program whose debug file does
// not match.
func TestProcessNoSymbol(t *testing.T) {
	dir := t.TempDir()
	prog, debug := stripWithDebugLink(t, dir, "-fPIE", "-pie")
	if err := os.Remove(debug); err != nil {
		t.Fatal(err)
	}
	p := start(t, prog)
	addr := p.addrs(t)[0]
	var u Users
	want := fmt.Sprintf("prog`0x%x", addr+5)
	if got := u.FormatFrame(p.pid(), addr+5); got != want {
		t.Errorf("FormatFrame = %q, want %q", got, want)
	}
	if got := u.Sym(p.pid(), addr+5); got != want {
		t.Errorf("Sym = %q, want %q", got, want)
	}
	if got := u.Mod(p.pid(), addr+5); got != "prog" {
		t.Errorf("Mod = %q, want prog", got)
	}
	if mod, fn, _, ok := u.Lookup(p.pid(), addr+5); mod != "prog" || fn != "" || ok {
		t.Errorf("Lookup = %q, %q, %v", mod, fn, ok)
	}
}

// TestSharedLibrary resolves a function of a shared library whose file
// offsets and virtual addresses differ.
func TestSharedLibrary(t *testing.T) {
	dir := t.TempDir()
	buildLib(t, dir)
	prog := compile(t, "gcc", dir, "use.c", useLibC, "use", "-fPIE", "-pie", "-L"+dir, "-lsonde", "-Wl,-rpath,"+dir)
	p := start(t, prog)
	addr := p.addrs(t)[0]
	var u Users
	if got, want := u.FormatFrame(p.pid(), addr+7), "libsonde.so`lib_target+0x7"; got != want {
		t.Errorf("FormatFrame = %q, want %q", got, want)
	}
	if got, want := u.Sym(p.pid(), addr+7), "libsonde.so`lib_target"; got != want {
		t.Errorf("Sym = %q, want %q", got, want)
	}
}

// TestCxx resolves an address inside a C++ method in a shared library,
// demangled and not, with the offset checked against the symbol table.
func TestCxx(t *testing.T) {
	dir := t.TempDir()
	lib := compile(t, "g++", dir, "cxx.cc", libCxx, "libcxx.so", "-shared", "-fPIC")
	prog := compile(t, "gcc", dir, "usecxx.c", useCxxC, "usecxx", "-L"+dir, "-lcxx", "-Wl,-rpath,"+dir)
	p := start(t, prog)
	as := p.addrs(t)
	ret, callMethod := as[0], as[1]
	// The load bias, from call_method; then the offset of the return
	// address into the method.
	cm, _ := elfSym(t, lib, "call_method")
	method, size := elfSym(t, lib, "_ZN2ns5Class6methodEi")
	off := ret - (callMethod - cm + method)
	if off == 0 || off >= size {
		t.Fatalf("return address %#x is not inside the method (offset %#x, size %#x)", ret, off, size)
	}
	var u Users
	if got, want := u.FormatFrame(p.pid(), ret), fmt.Sprintf("libcxx.so`ns::Class::method(int)+0x%x", off); got != want {
		t.Errorf("FormatFrame = %q, want %q", got, want)
	}
	if got, want := u.Func(p.pid(), ret), "libcxx.so`ns::Class::method(int)"; got != want {
		t.Errorf("Func = %q, want %q", got, want)
	}
	m := Users{Mangled: true}
	if got, want := m.FormatFrame(p.pid(), ret), fmt.Sprintf("libcxx.so`_ZN2ns5Class6methodEi+0x%x", off); got != want {
		t.Errorf("mangled: FormatFrame = %q, want %q", got, want)
	}
}

// TestDlopen checks that a library loaded after the Snapshot is found:
// an address in no known mapping makes them be read again.
func TestDlopen(t *testing.T) {
	dir := t.TempDir()
	lib := buildLib(t, dir)
	prog := compile(t, "gcc", dir, "dl.c", dlopenC, "dl", "-ldl")
	p := start(t, prog, lib)
	if l := p.line(t); l != "ready" {
		t.Fatalf("got %q", l)
	}
	var u Users
	if err := u.Snapshot(p.pid()); err != nil {
		t.Fatal(err)
	}
	if _, err := p.stdin.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	addr := p.addrs(t)[0]
	time.Sleep(missInterval)
	if got, want := u.FormatFrame(p.pid(), addr+1), "libsonde.so`lib_target+0x1"; got != want {
		t.Errorf("FormatFrame = %q, want %q", got, want)
	}
}

// TestVdso resolves a function of the vdso, which is read from memory.
func TestVdso(t *testing.T) {
	dir := t.TempDir()
	prog := compile(t, "gcc", dir, "prog.c", progC, "prog")
	p := start(t, prog)
	p.addrs(t)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", p.pid()))
	if err != nil {
		t.Fatal(err)
	}
	var vdso *mapping
	for _, m := range parseMaps(b) {
		if m.path == "[vdso]" {
			vdso = &m
		}
	}
	if vdso == nil {
		t.Skip("no vdso")
	}
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", p.pid()))
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	img := make([]byte, vdso.end-vdso.start)
	if _, err := mem.ReadAt(img, int64(vdso.start)); err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := ef.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name != "__vdso_clock_gettime" {
			continue
		}
		var u Users
		addr := vdso.start + s.Value + 1 // the vdso's first segment is at offset and address 0
		if got := u.FormatFrame(p.pid(), addr); got != "[vdso]`clock_gettime+0x1" {
			t.Errorf("FormatFrame = %q, want [vdso]`clock_gettime+0x1", got)
		}
		return
	}
	t.Skip("no __vdso_clock_gettime in the vdso")
}

func TestParseMaps(t *testing.T) {
	maps := parseMaps([]byte(`55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234                       /usr/bin/sleep
55d0c0a02000-55d0c0a06000 r-xp 00002000 08:01 1234                       /usr/bin/sleep
7f0000000000-7f0000001000 r-xp 00001000 00:1f 99                         /tmp/a b (deleted)
7f0000002000-7f0000003000 rw-p 00000000 00:00 0                          [heap]
7f0000004000-7f0000005000 r-xp 00000000 00:00 0 
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
`))
	want := []mapping{
		{start: 0x55d0c0a00000, end: 0x55d0c0a02000, dev: 0x801, ino: 1234, path: "/usr/bin/sleep", mod: "sleep"},
		{start: 0x55d0c0a02000, end: 0x55d0c0a06000, pgoff: 0x2000, exec: true, dev: 0x801, ino: 1234, path: "/usr/bin/sleep", mod: "sleep"},
		{start: 0x7f0000000000, end: 0x7f0000001000, pgoff: 0x1000, exec: true, dev: 0x1f, ino: 99, path: "/tmp/a b", mod: "a b", deleted: true},
		{start: 0x7f0000002000, end: 0x7f0000003000, path: "[heap]"},
		{start: 0x7f0000004000, end: 0x7f0000005000, exec: true},
		{start: 0x7ffd00000000, end: 0x7ffd00002000, exec: true, path: "[vdso]", mod: "[vdso]"},
	}
	if len(maps) != len(want) {
		t.Fatalf("got %d mappings: %+v", len(maps), maps)
	}
	for i := range want {
		if maps[i] != want[i] {
			t.Errorf("mapping %d: got %+v, want %+v", i, maps[i], want[i])
		}
	}
	p := &proc{maps: maps}
	if m := p.find(0x55d0c0a05fff); m == nil || m.pgoff != 0x2000 {
		t.Errorf("find: %+v", m)
	}
	if m := p.find(0x55d0c0a06000); m != nil {
		t.Errorf("find past the end: %+v", m)
	}
}
