package header

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/usdt"
)

// The object -G writes, read back by debug/elf for both classes: one
// COMDAT group per probe, named after its semaphore, holding a 2-byte
// .probes section the weak hidden semaphore symbol defines.
func TestObject(t *testing.T) {
	prog := parse(t, "p.d", "provider http { probe request__start(char *); probe done(); };\nprovider empty { };")
	for _, tg := range []Target{
		{elf.ELFCLASS64, elf.ELFDATA2LSB, elf.EM_X86_64},
		{elf.ELFCLASS32, elf.ELFDATA2LSB, elf.EM_386},
		{elf.ELFCLASS64, elf.ELFDATA2MSB, elf.EM_S390},
	} {
		var b bytes.Buffer
		if err := Object(&b, []*ast.Program{prog}, tg); err != nil {
			t.Fatal(err)
		}
		f, err := elf.NewFile(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%v: %v", tg, err)
		}
		if f.Type != elf.ET_REL || f.Class != tg.Class || f.Machine != tg.Machine || f.Data != tg.Data {
			t.Errorf("%v: header %v %v %v %v", tg, f.Type, f.Class, f.Machine, f.Data)
		}
		syms, err := f.Symbols()
		if err != nil {
			t.Fatalf("%v: %v", tg, err)
		}
		want := []string{"http_request__start_semaphore", "http_done_semaphore"}
		if len(syms) != len(want) {
			t.Fatalf("%v: symbols %v", tg, syms)
		}
		if f.Section(".note.GNU-stack") == nil {
			t.Errorf("%v: no .note.GNU-stack", tg)
		}
		for i, s := range syms {
			sec := f.Sections[s.Section]
			if s.Name != want[i] || elf.ST_BIND(s.Info) != elf.STB_WEAK || elf.ST_TYPE(s.Info) != elf.STT_OBJECT ||
				elf.ST_VISIBILITY(s.Other) != elf.STV_HIDDEN || s.Size != 2 || s.Value != 0 {
				t.Errorf("%v: symbol %+v", tg, s)
			}
			if sec.Name != ".probes" || sec.Size != 2 || sec.Flags != elf.SHF_WRITE|elf.SHF_ALLOC|elf.SHF_GROUP {
				t.Errorf("%v: %s's section %+v", tg, s.Name, sec.SectionHeader)
			}
			g := f.Sections[s.Section-1]
			data, _ := g.Data()
			if g.Type != elf.SHT_GROUP || g.Info != uint32(i+1) || len(data) != 8 ||
				f.ByteOrder.Uint32(data) != 1 || f.ByteOrder.Uint32(data[4:]) != uint32(s.Section) {
				t.Errorf("%v: %s's group %+v % x", tg, s.Name, g.SectionHeader, data)
			}
		}
	}
}

// A build that edits the header's text keeps valid type records:
// memcached's Makefile turns "char *" into "const char *" with sed, which
// made the records' sizes wrong when they were counted (readelf warned,
// and sonde could not read the notes).
func TestEditedHeader(t *testing.T) {
	cc := needTool(t, "cc")
	h := generate(t, "provider ed { probe key(char *, int); probe ptr(void *); };", Options{Guard: "ED_H"})
	h = strings.ReplaceAll(h, "char *", "const char *")
	h = strings.ReplaceAll(h, "void *", "const void *")
	dir := t.TempDir()
	src := "#include \"ed.h\"\nint main(int argc, char **argv) { ED_KEY(argv[0], argc); ED_PTR(argv); return 0; }\n"
	for name, text := range map[string]string{"ed.h": h, "main.c": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, cc, "-O1", "-Wall", "-Werror", "-o", "prog", "main.c")
	f, err := usdt.Open(filepath.Join(dir, "prog"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{{"key", "const char *,int"}, {"ptr", "const void *"}} {
		pt := f.TypesOf("ed", c.name)
		if pt == nil {
			t.Fatalf("ed:::%s: no type record", c.name)
		}
		var got []string
		for _, a := range pt.Native {
			got = append(got, a.Type)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("ed:::%s: native types %q, want %q", c.name, got, c.want)
		}
	}
}

// Type records that cannot be read do not hide the probes: they stay,
// untyped, and File.TypeErr says why.
func TestDamagedTypeRecords(t *testing.T) {
	cc := needTool(t, "cc")
	h := generate(t, "provider ed { probe key(char *, int); };", Options{Guard: "ED_H"})
	if !strings.Contains(h, "996f-995f") {
		t.Fatal("the header no longer sizes type records with labels")
	}
	h = strings.ReplaceAll(h, "996f-995f", "3") // a record cut short
	dir := t.TempDir()
	src := "#include \"ed.h\"\nint main(int argc, char **argv) { ED_KEY(argv[0], argc); return 0; }\n"
	for name, text := range map[string]string{"ed.h": h, "main.c": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, cc, "-O1", "-o", "prog", "main.c")
	f, err := usdt.Open(filepath.Join(dir, "prog"))
	if err != nil {
		t.Fatal(err)
	}
	if f.TypeErr == nil || len(f.Probes) != 1 || f.Probes[0].Name != "key" || f.Probes[0].Types != nil {
		t.Errorf("TypeErr %v, probes %v", f.TypeErr, f.Probes)
	}
}
