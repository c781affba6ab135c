package header

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/ast"
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
