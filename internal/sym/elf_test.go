package sym

import (
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// buildLib builds libsonde.so with its first segment at 0x200000, so that
// file offsets and virtual addresses differ.
func buildLib(t *testing.T, dir string) string {
	t.Helper()
	return compile(t, "gcc", dir, "lib.c", libC, "libsonde.so", "-shared", "-fPIC", "-Wl,-Ttext-segment=0x200000")
}

// TestFileOffsets checks the translation between file offsets and virtual
// addresses on a library whose p_offset and p_vaddr differ, against the
// section headers.
func TestFileOffsets(t *testing.T) {
	lib := buildLib(t, t.TempDir())
	f, err := OpenFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != elf.ET_DYN {
		t.Errorf("type %v, want ET_DYN", f.Type)
	}
	ef, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	text := ef.Section(".text")
	if text.Addr == text.Offset {
		t.Fatalf(".text at offset %#x and address %#x: the test proves nothing", text.Offset, text.Addr)
	}
	v, size := elfSym(t, lib, "lib_target")
	off, ok := f.VaddrToOffset(v)
	if want := v - text.Addr + text.Offset; !ok || off != want {
		t.Errorf("VaddrToOffset(%#x) = %#x, %v; want %#x", v, off, ok, want)
	}
	if back, ok := f.OffsetToVaddr(off); !ok || back != v {
		t.Errorf("OffsetToVaddr(%#x) = %#x, %v; want %#x", off, back, ok, v)
	}
	if s, ok := f.Lookup(v + size - 1); !ok || s.Name != "lib_target" || s.Value != v || s.Size != size {
		t.Errorf("Lookup(end-1) = %+v, %v", s, ok)
	}
	if s, ok := f.Lookup(v + size); ok && s.Name == "lib_target" {
		t.Errorf("Lookup(end) = %+v: past the function", s)
	}
}

// TestSymbolChoice checks which of several symbols at one address names
// it: not the local one, the one with fewer underscores, then global
// before weak.
func TestSymbolChoice(t *testing.T) {
	lib := buildLib(t, t.TempDir())
	f, err := OpenFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ alias, want string }{
		{"__impl", "impl"},     // weak impl, global __impl, local local_impl
		{"local_impl", "impl"}, // the same address
		{"abc", "zed"},         // global zed, weak abc
	} {
		v, _ := elfSym(t, lib, c.alias)
		if s, ok := f.Lookup(v); !ok || s.Name != c.want {
			t.Errorf("Lookup(%s) = %q, %v; want %q", c.alias, s.Name, ok, c.want)
		}
	}
	// The order of the symbols must not matter.
	syms := append([]Symbol(nil), f.Symbols()...)
	for i, j := 0, len(syms)-1; i < j; i, j = i+1, j-1 {
		syms[i], syms[j] = syms[j], syms[i]
	}
	g := &File{}
	g.setSymbols(syms)
	v, _ := elfSym(t, lib, "__impl")
	if s, _ := g.Lookup(v); s.Name != "impl" {
		t.Errorf("reversed table: Lookup(__impl) = %q", s.Name)
	}
}

// stripWithDebugLink builds progC, moves its symbols to prog.debug and
// links to it.
func stripWithDebugLink(t *testing.T, dir string, flags ...string) (prog, debug string) {
	t.Helper()
	need(t, "objcopy")
	prog = compile(t, "gcc", dir, "prog.c", progC, "prog", flags...)
	debug = prog + ".debug"
	run(t, "objcopy", "--only-keep-debug", prog, debug)
	run(t, "objcopy", "--strip-all", prog)
	run(t, "objcopy", "--add-gnu-debuglink="+debug, prog)
	ef, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	if ef.Section(".symtab") != nil {
		t.Fatal("still has a .symtab")
	}
	return prog, debug
}

// TestDebugLink checks that a stripped executable gets its symbols from
// the file its .gnu_debuglink names, beside it or in .debug/, and only
// when the CRC matches.
func TestDebugLink(t *testing.T) {
	dir := t.TempDir()
	prog, debug := stripWithDebugLink(t, dir)
	v, _ := elfSym(t, debug, "sonde_target")

	f, err := OpenFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	if f.DebugFile != debug {
		t.Errorf("DebugFile %q, want %q", f.DebugFile, debug)
	}
	if s, ok := f.Lookup(v + 1); !ok || s.Name != "sonde_target" {
		t.Errorf("Lookup = %+v, %v; want sonde_target", s, ok)
	}

	// In .debug/.
	if err := os.Mkdir(filepath.Join(dir, ".debug"), 0o755); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(dir, ".debug", filepath.Base(debug))
	if err := os.Rename(debug, moved); err != nil {
		t.Fatal(err)
	}
	if f, err = OpenFile(prog); err != nil {
		t.Fatal(err)
	}
	if f.DebugFile != moved {
		t.Errorf("DebugFile %q, want %q", f.DebugFile, moved)
	}

	// A debug file that is not the one linked to is not used.
	b, err := os.ReadFile(moved)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, append(b, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err = OpenFile(prog); err != nil {
		t.Fatal(err)
	}
	if f.DebugFile != "" {
		t.Errorf("bad CRC: DebugFile %q", f.DebugFile)
	}
	if s, ok := f.Lookup(v + 1); ok {
		t.Errorf("bad CRC: Lookup = %+v", s)
	}
}

// TestBuildIDDebug checks that a stripped object finds its debug file
// under usr/lib/debug/.build-id of the process's root, and only when the
// build ID matches.
func TestBuildIDDebug(t *testing.T) {
	dir := t.TempDir()
	prog, debug := stripWithDebugLink(t, dir)
	v, _ := elfSym(t, debug, "sonde_target")
	root := t.TempDir()

	open := func() *File {
		t.Helper()
		r, err := os.Open(prog)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		// As the process sees it, the program is /bin/prog: its debug
		// link leads nowhere.
		f, err := parseFile(r, "/bin/prog", root)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open()
	if len(f.BuildID) < 4 {
		t.Fatalf("build ID %q", f.BuildID)
	}
	if f.DebugFile != "" {
		t.Fatalf("DebugFile %q before it is installed", f.DebugFile)
	}
	p := filepath.Join(root, "usr/lib/debug/.build-id", f.BuildID[:2], f.BuildID[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}

	// Another program's debug file, with another build ID: not used.
	other, _ := stripWithDebugLink(t, t.TempDir(), "-DVARIANT=1", "-Wl,--build-id=0x0123456789")
	if err := os.Rename(other+".debug", p); err != nil {
		t.Fatal(err)
	}
	if f := open(); f.DebugFile != "" {
		t.Errorf("wrong build ID: DebugFile %q", f.DebugFile)
	}

	if err := os.Rename(debug, p); err != nil {
		t.Fatal(err)
	}
	f = open()
	if f.DebugFile != p {
		t.Errorf("DebugFile %q, want %q", f.DebugFile, p)
	}
	if s, ok := f.Lookup(v); !ok || s.Name != "sonde_target" {
		t.Errorf("Lookup = %+v, %v; want sonde_target", s, ok)
	}
}

// TestResolveFunc checks the lookup of functions by name, mangled or not.
func TestResolveFunc(t *testing.T) {
	dir := t.TempDir()
	lib := compile(t, "g++", dir, "cxx.cc", libCxx, "libcxx.so", "-shared", "-fPIC")
	v, size := elfSym(t, lib, "_ZN2ns5Class6methodEi")
	for _, name := range []string{"_ZN2ns5Class6methodEi", "ns::Class::method(int)", "ns::Class::method"} {
		s, err := ResolveFunc(lib, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(s) != 1 || s[0].Value != v || s[0].Size != size || s[0].Name != "_ZN2ns5Class6methodEi" {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if s, err := ResolveFunc(lib, "call_method"); err != nil || len(s) != 1 {
		t.Errorf("call_method: %+v, %v", s, err)
	}
	if s, err := ResolveFunc(lib, "ns::Class::nothing"); err == nil {
		t.Errorf("ns::Class::nothing: %+v, no error", s)
	}
	if _, err := ResolveFunc(filepath.Join(dir, "cxx.cc"), "main"); err == nil {
		t.Error("not an ELF file: no error")
	}
}
