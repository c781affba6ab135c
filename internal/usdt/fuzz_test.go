package usdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"reflect"
	"testing"
)

// FuzzParseArgs: the argument decoder never panics, and what it accepts is
// well formed.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"8@%rdi -4@%eax", "-1@%ah 2@%r8w", "-8@-8(%rbp)", "8@8(%rax,%rbx,4)", "4@(,%rdx,8)",
		"-8@counter(%rip)", "4@counter+16(%rip)", "4@$-5", "8@$0x10", "4@0x601040",
		"-4@[sp, 8] 8@x0", "4@w1", "8@[x1]", "4@#7", "8@[x2, x3]", "8@xzr", "-4@5",
		"", "@", "8@(", "8@[", "8@)", "-@%rax", "99999999999999999999@%rax",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		for _, m := range []elf.Machine{elf.EM_X86_64, elf.EM_AARCH64, elf.EM_386, elf.EM_RISCV} {
			args, err := ParseArgs(m, spec)
			if err != nil {
				if args != nil {
					t.Errorf("%v %q: args and an error", m, spec)
				}
				continue
			}
			for _, a := range args {
				if a.Size != 1 && a.Size != 2 && a.Size != 4 && a.Size != 8 {
					t.Errorf("%v %q: size %d", m, spec, a.Size)
				}
				switch a.Kind {
				case KindRegister:
					if a.Reg.Name == "" || a.Reg.Size == 0 {
						t.Errorf("%v %q: register arg without a register", m, spec)
					}
				case KindMemory:
					if a.Reg.Name == "" && a.Index.Name == "" {
						t.Errorf("%v %q: memory arg without a register", m, spec)
					}
				case KindImmediate, KindStatic:
				default:
					t.Errorf("%v %q: kind %v", m, spec, a.Kind)
				}
			}
		}
	})
}

// FuzzNotes: the note, stapsdt and type-record decoders never panic on any
// section contents, and a decoded type record encodes back to a record
// that decodes the same.
func FuzzNotes(f *testing.F) {
	s := synth{elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, "-4@%edi", 0}
	file := s.build(f)
	f.Add(file[0x220:0x2c0], false, false, true)
	f.Add(note(binary.BigEndian, "stapsdt", 3, []byte("\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00p\x00n\x00\x00")), true, false, false)
	rec, _ := EncodeTypeRecord(&ProbeTypes{Provider: "p", Name: "n", Native: []TypedArg{{"int", "a"}}, Translated: []TypedArg{{"long", "b"}}, Map: []int{0}})
	f.Add(note(binary.LittleEndian, TypeNoteOwner, TypeNoteType, rec), false, true, true)
	f.Add([]byte{}, false, false, false)
	f.Fuzz(func(t *testing.T, data []byte, be, align8, class64 bool) {
		var bo binary.ByteOrder = binary.LittleEndian
		if be {
			bo = binary.BigEndian
		}
		align := uint64(4)
		if align8 {
			align = 8
		}
		addrSize := 4
		if class64 {
			addrSize = 8
		}
		notes, err := ParseNotes(data, bo, align)
		if err != nil {
			return
		}
		for _, n := range notes {
			if sd, err := ParseStapsdt(n.Desc, bo, addrSize); err == nil {
				ParseArgs(elf.EM_X86_64, sd.Args)
			}
			pt, err := ParseTypeRecord(n.Desc)
			if err != nil {
				continue
			}
			b, err := EncodeTypeRecord(pt)
			if err != nil {
				t.Fatalf("decoded record %+v does not encode: %v", pt, err)
			}
			pt2, err := ParseTypeRecord(b)
			if err != nil || !reflect.DeepEqual(pt, pt2) {
				t.Fatalf("round trip: %+v, %+v, %v", pt, pt2, err)
			}
		}
	})
}

// FuzzNewFile: reading the probes of any file debug/elf accepts never
// panics.
func FuzzNewFile(f *testing.F) {
	for _, s := range []synth{
		{elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, "-4@%edi -8@counter(%rip)", 0x10000},
		{elf.ELFCLASS32, binary.BigEndian, elf.EM_PPC, "4@%r3", 0},
	} {
		f.Add(s.build(f))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		NewFile(ef)
	})
}
