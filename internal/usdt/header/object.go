package header

// object.go writes what `dtrace -G` writes on Linux, as SystemTap's dtrace
// does: an ELF relocatable object that build systems link with the objects
// whose probes a provider defines. The probes themselves are in those
// objects (the .note.stapsdt notes the header's macros emit); the object
// gives every probe its semaphore, so that objects compiled against a
// header that only declares them (sys/sdt.h's) link. Each semaphore is
// defined as the header defines it, in a COMDAT group of its own named
// after it (a weak, hidden, 2-byte object in .probes), so that objects
// compiled with sonde's header and this object share one.
//
// Layout: the ELF header; the contents of .shstrtab, .strtab, .symtab and
// of each .group; the section headers: NULL, .shstrtab, .strtab, .symtab,
// .note.GNU-stack (no executable stack wanted), then per probe its .group
// and its .probes (SHT_PROGBITS of 2 zero bytes; a group's section header
// comes before its member's, as the gABI requires).

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/sonde-trace/sonde/internal/d/ast"
)

// Target is the kind of object to write: the class, byte order and
// machine of the objects it is linked with.
type Target struct {
	Class   elf.Class
	Data    elf.Data
	Machine elf.Machine
}

// Semaphores returns the semaphore names of the probes that the provider
// definitions of progs define, in order.
func Semaphores(progs []*ast.Program) ([]string, error) {
	provs, _, err := collect(progs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, pv := range provs {
		for _, pr := range pv.probes {
			out = append(out, pr.sem)
		}
	}
	return out, nil
}

// Object writes the object of the provider definitions of progs for t.
func Object(w io.Writer, progs []*ast.Program, t Target) error {
	sems, err := Semaphores(progs)
	if err != nil {
		return err
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if t.Data == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	is64 := t.Class == elf.ELFCLASS64
	if !is64 && t.Class != elf.ELFCLASS32 {
		return fmt.Errorf("unknown ELF class %v", t.Class)
	}

	strs := newStrtab()
	shstrs := newStrtab()
	type section struct {
		name             string
		typ              elf.SectionType
		flags            elf.SectionFlag
		data             []byte
		size             uint64 // when data is nil (.probes, .note.GNU-stack)
		link, info       uint32
		align, entsize   uint64
		nameOff, dataOff uint64
	}
	const (
		iShstrtab = 1
		iStrtab   = 2
		iSymtab   = 3
		iFirst    = 5 // the first probe's .group
	)
	secs := []*section{
		{},
		{name: ".shstrtab", typ: elf.SHT_STRTAB, align: 1},
		{name: ".strtab", typ: elf.SHT_STRTAB, align: 1},
		{name: ".symtab", typ: elf.SHT_SYMTAB, link: iStrtab, info: 1, align: 8},
		{name: ".note.GNU-stack", typ: elf.SHT_PROGBITS, align: 1},
	}
	var syms bytes.Buffer
	symSize := 24
	if !is64 {
		symSize = 16
		secs[iSymtab].align = 4
	}
	syms.Write(make([]byte, symSize)) // the null symbol
	for i, s := range sems {
		group := uint32(iFirst + 2*i)
		var g bytes.Buffer
		binary.Write(&g, bo, []uint32{1 /* GRP_COMDAT */, group + 1})
		secs = append(secs,
			&section{name: ".group", typ: elf.SHT_GROUP, data: g.Bytes(), link: iSymtab, info: uint32(i + 1), align: 4, entsize: 4},
			&section{name: ".probes", typ: elf.SHT_PROGBITS, flags: elf.SHF_WRITE | elf.SHF_ALLOC | elf.SHF_GROUP, data: []byte{0, 0}, align: 2},
		)
		name := strs.add(s)
		info := byte(elf.STB_WEAK)<<4 | byte(elf.STT_OBJECT)
		other := byte(elf.STV_HIDDEN)
		if is64 {
			binary.Write(&syms, bo, elf.Sym64{Name: name, Info: info, Other: other, Shndx: uint16(group + 1), Size: 2})
		} else {
			binary.Write(&syms, bo, elf.Sym32{Name: name, Info: info, Other: other, Shndx: uint16(group + 1), Size: 2})
		}
	}
	if len(secs) >= int(elf.SHN_LORESERVE) {
		return fmt.Errorf("%d probes: too many for one object", len(sems))
	}
	secs[iSymtab].data = syms.Bytes()
	secs[iSymtab].entsize = uint64(symSize)
	for _, s := range secs[1:] {
		s.nameOff = uint64(shstrs.add(s.name))
	}
	secs[iShstrtab].data = shstrs.bytes()
	secs[iStrtab].data = strs.bytes()

	ehSize, shSize := 64, 64
	if !is64 {
		ehSize, shSize = 52, 40
	}
	var body bytes.Buffer
	body.Write(make([]byte, ehSize))
	for _, s := range secs[1:] {
		for uint64(body.Len())%max(s.align, 1) != 0 {
			body.WriteByte(0)
		}
		s.dataOff = uint64(body.Len())
		body.Write(s.data)
		if s.data != nil {
			s.size = uint64(len(s.data))
		}
	}
	for body.Len()%8 != 0 {
		body.WriteByte(0)
	}
	shoff := uint64(body.Len())
	for _, s := range secs {
		if is64 {
			binary.Write(&body, bo, elf.Section64{Name: uint32(s.nameOff), Type: uint32(s.typ), Flags: uint64(s.flags),
				Off: s.dataOff, Size: s.size, Link: s.link, Info: s.info, Addralign: s.align, Entsize: s.entsize})
		} else {
			binary.Write(&body, bo, elf.Section32{Name: uint32(s.nameOff), Type: uint32(s.typ), Flags: uint32(s.flags),
				Off: uint32(s.dataOff), Size: uint32(s.size), Link: s.link, Info: s.info, Addralign: uint32(s.align), Entsize: uint32(s.entsize)})
		}
	}
	out := body.Bytes()
	var ident [elf.EI_NIDENT]byte
	copy(ident[:], elf.ELFMAG)
	ident[elf.EI_CLASS] = byte(t.Class)
	ident[elf.EI_DATA] = byte(t.Data)
	ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	var eh bytes.Buffer
	if is64 {
		binary.Write(&eh, bo, elf.Header64{Ident: ident, Type: uint16(elf.ET_REL), Machine: uint16(t.Machine), Version: uint32(elf.EV_CURRENT),
			Shoff: shoff, Ehsize: uint16(ehSize), Shentsize: uint16(shSize), Shnum: uint16(len(secs)), Shstrndx: iShstrtab})
	} else {
		binary.Write(&eh, bo, elf.Header32{Ident: ident, Type: uint16(elf.ET_REL), Machine: uint16(t.Machine), Version: uint32(elf.EV_CURRENT),
			Shoff: uint32(shoff), Ehsize: uint16(ehSize), Shentsize: uint16(shSize), Shnum: uint16(len(secs)), Shstrndx: iShstrtab})
	}
	copy(out, eh.Bytes())
	_, err = w.Write(out)
	return err
}

// strtab is an ELF string table being built.
type strtab struct {
	b   bytes.Buffer
	off map[string]uint32
}

func newStrtab() *strtab {
	t := &strtab{off: map[string]uint32{}}
	t.b.WriteByte(0)
	return t
}

func (t *strtab) add(s string) uint32 {
	if off, ok := t.off[s]; ok {
		return off
	}
	off := uint32(t.b.Len())
	t.b.WriteString(s)
	t.b.WriteByte(0)
	t.off[s] = off
	return off
}

func (t *strtab) bytes() []byte { return t.b.Bytes() }

// Defined returns the probes the provider definitions of progs define:
// provider name, then the probe names as their notes spell them
// (request__start).
func Defined(progs []*ast.Program) (map[string]map[string]bool, error) {
	provs, _, err := collect(progs)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, pv := range provs {
		names := map[string]bool{}
		for _, pr := range pv.probes {
			names[pr.def.Name] = true
		}
		out[pv.decl.Name] = names
	}
	return out, nil
}
