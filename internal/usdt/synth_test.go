package usdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// synthELF builds a small linked ELF file by hand, of either class and byte
// order, holding one probe whose note was written at other addresses than
// the file's (as after prelinking): the note says pc, base and semaphore are
// all `shift` bytes lower than where the file's sections put them.
//
// File layout:
//
//	0x100 .text (0x100 bytes), 0x200 .stapsdt.base (1 byte)  -> PT_LOAD R+X at vaddr 0x401000
//	0x210 .probes (0x10 bytes: semaphore at +2, counter at +8) -> PT_LOAD RW at vaddr 0x603000
//	0x220 .note.stapsdt, .note.sonde, .symtab, .strtab, .shstrtab, section headers
//
// (Small, for the fuzzer; the kernel would want offsets congruent to the
// addresses modulo the page size, debug/elf and this package do not.)
type synth struct {
	class   elf.Class
	bo      binary.ByteOrder
	machine elf.Machine
	args    string
	shift   uint64
}

const (
	synText   = 0x401000
	synBase   = 0x401100
	synProbes = 0x603000
	synPC     = synText + 0x10
	synSem    = synProbes + 2
	synCtr    = synProbes + 8
)

func note(bo binary.ByteOrder, owner string, typ uint32, desc []byte) []byte {
	var b bytes.Buffer
	name := append([]byte(owner), 0)
	binary.Write(&b, bo, [3]uint32{uint32(len(name)), uint32(len(desc)), typ})
	b.Write(name)
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
	b.Write(desc)
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func (s synth) build(t testing.TB) []byte {
	is64 := s.class == elf.ELFCLASS64
	bo := s.bo
	addr := func(b *bytes.Buffer, v uint64) {
		if is64 {
			binary.Write(b, bo, v)
		} else {
			binary.Write(b, bo, uint32(v))
		}
	}
	// Notes.
	var desc bytes.Buffer
	addr(&desc, synPC-s.shift)
	addr(&desc, synBase-s.shift)
	addr(&desc, synSem-s.shift)
	desc.WriteString("prov\x00req__start\x00" + s.args + "\x00")
	stapsdt := note(bo, "stapsdt", 3, desc.Bytes())
	// A second probe without a semaphore and without arguments.
	desc.Reset()
	addr(&desc, synPC+5-s.shift)
	addr(&desc, synBase-s.shift)
	addr(&desc, 0)
	desc.WriteString("prov\x00done\x00\x00")
	stapsdt = append(stapsdt, note(bo, "stapsdt", 3, desc.Bytes())...)
	// Another owner's note in the same section is skipped.
	stapsdt = append(stapsdt, note(bo, "GNU", 3, []byte{1, 2, 3, 4})...)
	rec, err := EncodeTypeRecord(&ProbeTypes{
		Provider: "prov", Name: "req__start",
		Native:     []TypedArg{{"int", "a"}, {"long", "b"}},
		Translated: []TypedArg{{"long", "b"}},
		Map:        []int{1},
	})
	if err != nil {
		t.Fatal(err)
	}
	sonde := note(bo, TypeNoteOwner, TypeNoteType, rec)

	// Symbols: null, counter.
	strtab := []byte("\x00counter\x00")
	var symtab bytes.Buffer
	const probesIdx = 3
	if is64 {
		binary.Write(&symtab, bo, elf.Sym64{})
		binary.Write(&symtab, bo, elf.Sym64{Name: 1, Info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT), Shndx: probesIdx, Value: synCtr, Size: 8})
	} else {
		binary.Write(&symtab, bo, elf.Sym32{})
		binary.Write(&symtab, bo, elf.Sym32{Name: 1, Info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT), Shndx: probesIdx, Value: synCtr, Size: 8})
	}

	shstr := []byte("\x00.text\x00.stapsdt.base\x00.probes\x00.note.stapsdt\x00.note.sonde\x00.symtab\x00.strtab\x00.shstrtab\x00")
	nameOff := func(n string) uint32 { return uint32(bytes.Index(shstr, []byte("\x00"+n+"\x00")) + 1) }

	file := make([]byte, 0x220)
	text := bytes.Repeat([]byte{0x90}, 0x100)
	copy(text[0x10:], []byte{0x0f, 0x1f, 0x44, 0x00, 0x00})
	copy(file[0x100:], text)
	type sec struct {
		name         string
		typ          elf.SectionType
		flags        elf.SectionFlag
		addr, off    uint64
		size         uint64
		link, info   uint32
		align, entsz uint64
	}
	secs := []sec{
		{},
		{".text", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_EXECINSTR, synText, 0x100, 0x100, 0, 0, 16, 0},
		{".stapsdt.base", elf.SHT_PROGBITS, elf.SHF_ALLOC, synBase, 0x200, 1, 0, 0, 1, 0},
		{".probes", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_WRITE, synProbes, 0x210, 0x10, 0, 0, 2, 0},
	}
	appendSec := func(name string, typ elf.SectionType, data []byte, align uint64) {
		for uint64(len(file))%align != 0 {
			file = append(file, 0)
		}
		secs = append(secs, sec{name: name, typ: typ, off: uint64(len(file)), size: uint64(len(data)), align: align})
		file = append(file, data...)
	}
	appendSec(".note.stapsdt", elf.SHT_NOTE, stapsdt, 4)
	appendSec(".note.sonde", elf.SHT_NOTE, sonde, 4)
	appendSec(".symtab", elf.SHT_SYMTAB, symtab.Bytes(), 8)
	secs[len(secs)-1].link = 7 // .strtab
	secs[len(secs)-1].info = 1
	if is64 {
		secs[len(secs)-1].entsz = 24
	} else {
		secs[len(secs)-1].entsz = 16
	}
	appendSec(".strtab", elf.SHT_STRTAB, strtab, 1)
	appendSec(".shstrtab", elf.SHT_STRTAB, shstr, 1)
	for len(file)%8 != 0 {
		file = append(file, 0)
	}
	shoff := uint64(len(file))

	progs := []struct {
		flags                 elf.ProgFlag
		off, vaddr, filesz, m uint64
	}{
		{elf.PF_R | elf.PF_X, 0x100, synText, 0x101, 0x101},
		{elf.PF_R | elf.PF_W, 0x210, synProbes, 0x10, 0x40}, // 0x30 bytes of .bss after
	}

	var hdr bytes.Buffer
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(s.class), 0, byte(elf.EV_CURRENT)}
	if bo == binary.LittleEndian {
		ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	} else {
		ident[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	}
	if is64 {
		binary.Write(&hdr, bo, elf.Header64{
			Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(s.machine), Version: uint32(elf.EV_CURRENT),
			Phoff: 64, Shoff: shoff, Ehsize: 64, Phentsize: 56, Phnum: uint16(len(progs)),
			Shentsize: 64, Shnum: uint16(len(secs)), Shstrndx: uint16(len(secs) - 1),
		})
		for _, p := range progs {
			binary.Write(&hdr, bo, elf.Prog64{Type: uint32(elf.PT_LOAD), Flags: uint32(p.flags), Off: p.off, Vaddr: p.vaddr, Paddr: p.vaddr, Filesz: p.filesz, Memsz: p.m, Align: 0x1000})
		}
	} else {
		binary.Write(&hdr, bo, elf.Header32{
			Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(s.machine), Version: uint32(elf.EV_CURRENT),
			Phoff: 52, Shoff: uint32(shoff), Ehsize: 52, Phentsize: 32, Phnum: uint16(len(progs)),
			Shentsize: 40, Shnum: uint16(len(secs)), Shstrndx: uint16(len(secs) - 1),
		})
		for _, p := range progs {
			binary.Write(&hdr, bo, elf.Prog32{Type: uint32(elf.PT_LOAD), Flags: uint32(p.flags), Off: uint32(p.off), Vaddr: uint32(p.vaddr), Paddr: uint32(p.vaddr), Filesz: uint32(p.filesz), Memsz: uint32(p.m), Align: 0x1000})
		}
	}
	copy(file, hdr.Bytes())
	var sh bytes.Buffer
	for _, s := range secs {
		var name uint32
		if s.name != "" {
			name = nameOff(s.name)
		}
		if is64 {
			binary.Write(&sh, bo, elf.Section64{Name: name, Type: uint32(s.typ), Flags: uint64(s.flags), Addr: s.addr, Off: s.off, Size: s.size, Link: s.link, Info: s.info, Addralign: s.align, Entsize: s.entsz})
		} else {
			binary.Write(&sh, bo, elf.Section32{Name: name, Type: uint32(s.typ), Flags: uint32(s.flags), Addr: uint32(s.addr), Off: uint32(s.off), Size: uint32(s.size), Link: s.link, Info: s.info, Addralign: uint32(s.align), Entsize: uint32(s.entsz)})
		}
	}
	return append(file, sh.Bytes()...)
}

func TestSyntheticELF(t *testing.T) {
	tests := []struct {
		name string
		s    synth
		// want for the first argument
		arg0 Kind
	}{
		{"elf64-le-x86_64", synth{elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, "-4@%edi -8@counter(%rip)", 0x10000}, KindRegister},
		{"elf64-be-aarch64", synth{elf.ELFCLASS64, binary.BigEndian, elf.EM_AARCH64, "-4@[sp, 8] 8@x0", 0x10000}, KindMemory},
		{"elf32-le-i386", synth{elf.ELFCLASS32, binary.LittleEndian, elf.EM_386, "-4@%eax 4@counter", 0}, KindRegister},
		{"elf32-be-ppc", synth{elf.ELFCLASS32, binary.BigEndian, elf.EM_PPC, "4@%r3", 0x2000}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ef, err := elf.NewFile(bytes.NewReader(tt.s.build(t)))
			if err != nil {
				t.Fatal(err)
			}
			f, err := NewFile(ef)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Probes) != 2 {
				t.Fatalf("%d probes, want 2: %v", len(f.Probes), f.Probes)
			}
			p := f.Probes[0]
			if p.Provider != "prov" || p.Name != "req__start" || p.DName() != "req-start" {
				t.Errorf("probe %s:%s", p.Provider, p.Name)
			}
			if p.PC != synPC || p.Semaphore != synSem || p.Base != synBase || p.NoteBase != synBase-tt.s.shift {
				t.Errorf("pc %#x sem %#x base %#x notebase %#x: not adjusted for the moved .stapsdt.base", p.PC, p.Semaphore, p.Base, p.NoteBase)
			}
			if p.Err != nil {
				t.Fatal(p.Err)
			}
			if p.Offset != 0x110 || p.SemaphoreOffset != 0x212 {
				t.Errorf("offset %#x semaphore offset %#x, want 0x110 0x212", p.Offset, p.SemaphoreOffset)
			}
			if tt.arg0 == 0 {
				if p.ArgErr == nil {
					t.Errorf("args of %v decoded: %+v", tt.s.machine, p.Args)
				}
			} else {
				if p.ArgErr != nil {
					t.Fatal(p.ArgErr)
				}
				if len(p.Args) != 2 || p.Args[0].Kind != tt.arg0 || !p.Args[0].Signed || p.Args[0].Size != 4 {
					t.Errorf("args %+v", p.Args)
				}
				if a := p.Args[1]; a.Kind == KindStatic && (!a.Resolved || a.Addr != synCtr) {
					t.Errorf("static arg %+v: want counter resolved to %#x", a, synCtr)
				}
			}
			d := f.Probes[1]
			if d.Name != "done" || d.Semaphore != 0 || d.SemaphoreOffset != 0 || d.Offset != 0x115 || len(d.Args) != 0 || d.ArgErr != nil || d.Err != nil {
				t.Errorf("second probe %+v", d)
			}
			if p.Types == nil || len(p.Types.Native) != 2 || p.Types.Args()[0] != (TypedArg{"long", "b"}) || p.Types.Map[0] != 1 {
				t.Errorf("types %+v", p.Types)
			}
			if d.Types != nil {
				t.Errorf("done has types %+v", d.Types)
			}
			if got := f.Lookup("prov", "req-start"); len(got) != 1 || got[0] != p {
				t.Errorf("Lookup by DTrace name: %v", got)
			}
			if got := f.Lookup("prov", "req__start"); len(got) != 1 {
				t.Errorf("Lookup by note name: %v", got)
			}
		})
	}
}

func TestSemaphoreInBSS(t *testing.T) {
	// A semaphore in the zero-filled tail of the data segment has no file
	// backing: the kernel cannot count in it, so say so.
	s := synth{elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, "", 0}
	data := s.build(t)
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := semaphoreOffset(ef, synProbes+0x20); err == nil {
		t.Error("semaphore in .bss: no error")
	}
	if _, err := segmentOffset(ef, 0x999999, false); err == nil {
		t.Error("address outside the segments: no error")
	}
}

func TestTypeRecordRoundTrip(t *testing.T) {
	for _, pt := range []*ProbeTypes{
		{Provider: "p", Name: "n"},
		{Provider: "p", Name: "n", Native: []TypedArg{{"char *", ""}}, Translated: []TypedArg{}, Map: []int{}},
		{Provider: "http", Name: "request__start", Native: []TypedArg{{"httpproto_t *", "p"}},
			Translated: []TypedArg{{"conninfo_t *", "p"}, {"http_reqinfo_t *", "p"}}, Map: []int{0, 0}},
	} {
		b, err := EncodeTypeRecord(pt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseTypeRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		if got.Provider != pt.Provider || got.Name != pt.Name || len(got.Native) != len(pt.Native) ||
			(got.Translated == nil) != (pt.Translated == nil) || len(got.Translated) != len(pt.Translated) {
			t.Errorf("round trip of %+v gave %+v", pt, got)
		}
	}
	// The example in FORMAT.md.
	b, _ := EncodeTypeRecord(&ProbeTypes{Provider: "http", Name: "request__start", Native: []TypedArg{{"httpproto_t *", "p"}},
		Translated: []TypedArg{{"conninfo_t *", "p"}, {"http_reqinfo_t *", "p"}}, Map: []int{0, 0}})
	want := "\x01\x01\x02\x01\x00\x00http\x00request__start\x00httpproto_t *\x00p\x00conninfo_t *\x00p\x00http_reqinfo_t *\x00p\x00"
	if string(b) != want {
		t.Errorf("encoding %q\nwant %q", b, want)
	}
	for _, bad := range []string{"", "\x02\x00\x00\x00p\x00n\x00", "\x01\x01\x01\x01\x05p\x00n\x00t\x00a\x00t\x00a\x00", "\x01\x00\x01\x00\x00p\x00n\x00", "\x01\x01\x00\x00p\x00n\x00t"} {
		if _, err := ParseTypeRecord([]byte(bad)); err == nil {
			t.Errorf("ParseTypeRecord(%q): no error", bad)
		}
	}
}
