// Package usdt reads user-level statically defined tracing (USDT) probes
// from ELF files: the SystemTap SDT notes (.note.stapsdt, owner "stapsdt",
// type 3) that sys/sdt.h and sonde's generated headers emit, their argument
// specifications ("-4@%eax"), semaphores, and the type records that sonde
// headers add (.note.sonde, see FORMAT.md).
//
// Addresses are turned into what the kernel's uprobes want: the file offset
// of the probe site and the file offset of its semaphore (ref_ctr_offset).
package usdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Note owner and type of a SystemTap SDT probe note.
const (
	StapsdtOwner = "stapsdt"
	StapsdtType  = 3
)

// Probe is one probe site. A probe used in several places (or inlined)
// has one Probe per site, each with the same Provider and Name.
type Probe struct {
	Provider string // e.g. "http"
	Name     string // as in the note, e.g. "request__start"; see DName

	// Virtual addresses, adjusted as the SystemTap wiki describes when the
	// object was prelinked or otherwise moved after the note was written:
	// PC += Base - NoteBase, and the semaphore likewise.
	PC        uint64 // the probe site
	NoteBase  uint64 // the link-time address of .stapsdt.base recorded in the note
	Base      uint64 // the address of the .stapsdt.base section (0 when absent)
	Semaphore uint64 // the semaphore (an unsigned short), 0 when the probe has none

	// File offsets, for uprobes: the probe site, and the semaphore (the
	// uprobe's ref_ctr_offset; 0 when the probe has no semaphore). Both are
	// 0 when Err is set.
	Offset          uint64
	SemaphoreOffset uint64
	// Err says why the file offsets could not be computed (an unlinked
	// object, an address outside every loaded segment...). A probe with
	// Err set cannot be attached.
	Err error

	ArgSpec string // the argument string as written, e.g. "8@%rdi -4@%eax"
	Args    []Arg  // decoded arguments; nil when ArgErr is set
	ArgErr  error  // why ArgSpec could not be decoded

	// Types are the argument types recorded by a sonde-generated header
	// (nil when the object has no record for this probe).
	Types *ProbeTypes
}

// DName is the probe name as DTrace shows it: request__start is
// request-start.
func (p *Probe) DName() string { return DTraceName(p.Name) }

// String is provider:name as DTrace would write it, with the location.
func (p *Probe) String() string {
	return fmt.Sprintf("%s:%s@0x%x", p.Provider, p.DName(), p.PC)
}

// DTraceName maps an SDT probe name to DTrace's: each "__" is shown as
// "-" (request__start is request-start).
func DTraceName(name string) string { return strings.ReplaceAll(name, "__", "-") }

// File is the USDT content of one ELF object.
type File struct {
	Machine   elf.Machine
	Class     elf.Class
	ByteOrder binary.ByteOrder
	Type      elf.Type // ET_EXEC, ET_DYN...; probes in ET_REL objects have Err set

	Probes []*Probe       // in note order
	Types  []*ProbeTypes  // the sonde type records, in note order
	types  map[string]int // provider + "\x00" + name -> index in Types
	// TypeErr is why type records could not be read, nil when they
	// could: they are optional (the probes stay, their arguments
	// untyped), so a damaged .note.sonde does not hide the probes.
	TypeErr error
}

// Open reads the probes of the ELF file at path.
func Open(path string) (*File, error) {
	ef, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	f, err := NewFile(ef)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// NewFile reads the probes and type records of an opened ELF file. A
// malformed note is an error; a probe whose location or arguments cannot
// be decoded is returned with Err or ArgErr set.
func NewFile(ef *elf.File) (*File, error) {
	f := &File{Machine: ef.Machine, Class: ef.Class, ByteOrder: ef.ByteOrder, Type: ef.Type}
	addrSize := 8
	if ef.Class == elf.ELFCLASS32 {
		addrSize = 4
	}
	var base uint64
	if s := ef.Section(".stapsdt.base"); s != nil {
		base = s.Addr
	}
	var syms *symTable
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		data, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", s.Name, err)
		}
		notes, err := ParseNotes(data, ef.ByteOrder, s.Addralign)
		if err != nil {
			switch s.Name {
			case ".note.stapsdt":
				return nil, fmt.Errorf("section %s: %w", s.Name, err)
			case TypeNoteSection:
				if f.TypeErr == nil {
					f.TypeErr = fmt.Errorf("section %s: %w", s.Name, err)
				}
			}
			continue // someone else's notes, or unreadable type records
		}
		for _, n := range notes {
			switch {
			case n.Owner == StapsdtOwner && n.Type == StapsdtType:
				sd, err := ParseStapsdt(n.Desc, ef.ByteOrder, addrSize)
				if err != nil {
					return nil, fmt.Errorf("section %s: %w", s.Name, err)
				}
				p := &Probe{
					Provider:  sd.Provider,
					Name:      sd.Name,
					PC:        sd.PC,
					NoteBase:  sd.Base,
					Base:      base,
					Semaphore: sd.Semaphore,
					ArgSpec:   sd.Args,
				}
				if base != 0 && sd.Base != 0 {
					p.PC = p.PC - sd.Base + base
					if p.Semaphore != 0 {
						p.Semaphore = p.Semaphore - sd.Base + base
					}
				}
				p.Args, p.ArgErr = ParseArgs(ef.Machine, p.ArgSpec)
				if p.ArgErr == nil {
					for i := range p.Args {
						a := &p.Args[i]
						if a.Symbol == "" {
							continue
						}
						if syms == nil {
							syms = loadSymbols(ef)
						}
						if v, ok := syms.lookup(a.Symbol); ok {
							a.Addr, a.Resolved = v+uint64(a.Offset), true
						}
					}
				}
				f.locate(ef, p)
				f.Probes = append(f.Probes, p)
			case n.Owner == TypeNoteOwner && n.Type == TypeNoteType:
				pt, err := ParseTypeRecord(n.Desc)
				if errors.Is(err, ErrTypeVersion) {
					continue // written by a newer sonde
				}
				if err != nil {
					if f.TypeErr == nil {
						f.TypeErr = fmt.Errorf("section %s: %w", s.Name, err)
					}
					continue
				}
				f.addTypes(pt)
			}
		}
	}
	for _, p := range f.Probes {
		p.Types = f.TypesOf(p.Provider, p.Name)
	}
	return f, nil
}

func (f *File) addTypes(pt *ProbeTypes) {
	if f.types == nil {
		f.types = map[string]int{}
	}
	k := pt.Provider + "\x00" + pt.Name
	if _, dup := f.types[k]; dup {
		return // the same provider header linked twice: keep the first
	}
	f.types[k] = len(f.Types)
	f.Types = append(f.Types, pt)
}

// TypesOf returns the type record of provider:name (name as in the note,
// request__start, or as DTrace writes it, request-start), or nil.
func (f *File) TypesOf(provider, name string) *ProbeTypes {
	if i, ok := f.types[provider+"\x00"+name]; ok {
		return f.Types[i]
	}
	for _, t := range f.Types {
		if t.Provider == provider && DTraceName(t.Name) == name {
			return t
		}
	}
	return nil
}

// Lookup returns the sites of provider:name, name as in the note
// (request__start) or as DTrace writes it (request-start).
func (f *File) Lookup(provider, name string) []*Probe {
	var out []*Probe
	for _, p := range f.Probes {
		if p.Provider == provider && (p.Name == name || p.DName() == name) {
			out = append(out, p)
		}
	}
	return out
}

// locate fills in the file offsets of p's site and semaphore.
func (f *File) locate(ef *elf.File, p *Probe) {
	if ef.Type == elf.ET_REL {
		p.Err = errors.New("relocatable object: probe addresses are known only after linking")
		return
	}
	off, err := segmentOffset(ef, p.PC, false)
	if err != nil {
		p.Err = fmt.Errorf("probe site 0x%x: %w", p.PC, err)
		return
	}
	var semOff uint64
	if p.Semaphore != 0 {
		semOff, err = semaphoreOffset(ef, p.Semaphore)
		if err != nil {
			p.Err = fmt.Errorf("semaphore 0x%x: %w", p.Semaphore, err)
			return
		}
	}
	p.Offset, p.SemaphoreOffset = off, semOff
}

// segmentOffset converts a virtual address to a file offset through the
// PT_LOAD segment holding it; writable requires a writable segment.
func segmentOffset(ef *elf.File, addr uint64, writable bool) (uint64, error) {
	for _, prog := range ef.Progs {
		if prog.Type != elf.PT_LOAD {
			continue
		}
		if addr >= prog.Vaddr && addr-prog.Vaddr < prog.Filesz {
			if writable && prog.Flags&elf.PF_W == 0 {
				return 0, fmt.Errorf("in a read-only segment")
			}
			return addr - prog.Vaddr + prog.Off, nil
		}
		if addr >= prog.Vaddr && addr-prog.Vaddr < prog.Memsz {
			return 0, fmt.Errorf("in the zero-filled part of a segment (no file backing)")
		}
	}
	return 0, fmt.Errorf("not in any loadable segment")
}

// semaphoreOffset is the file offset of a semaphore, the uprobe's
// ref_ctr_offset: the kernel finds the semaphore in the file mapping that
// covers this offset. It is computed through the section holding the
// semaphore (".probes" for sys/sdt.h and sonde headers), or through the
// segment when the file has no section headers.
func semaphoreOffset(ef *elf.File, addr uint64) (uint64, error) {
	for _, s := range ef.Sections {
		// .tbss claims addresses it does not occupy: skip TLS sections.
		if s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_TLS != 0 || s.Size == 0 || addr < s.Addr || addr-s.Addr >= s.Size {
			continue
		}
		if s.Type == elf.SHT_NOBITS {
			return 0, fmt.Errorf("in %s, which has no file backing", s.Name)
		}
		if s.Flags&elf.SHF_WRITE == 0 {
			return 0, fmt.Errorf("in read-only section %s", s.Name)
		}
		if s.Size-(addr-s.Addr) < 2 {
			return 0, fmt.Errorf("runs past the end of %s", s.Name)
		}
		return s.Offset + (addr - s.Addr), nil
	}
	return segmentOffset(ef, addr, true)
}

// Note is one ELF note.
type Note struct {
	Owner string // the name, without its NUL
	Type  uint32
	Desc  []byte
}

// ParseNotes splits the contents of a SHT_NOTE section (or PT_NOTE
// segment). align is the section's alignment: 8 aligns descriptors and
// notes to 8 bytes (as .note.gnu.property does); anything else to 4, as
// every other Linux note does, ELF64 included.
func ParseNotes(data []byte, bo binary.ByteOrder, align uint64) ([]Note, error) {
	pad := uint64(4)
	if align == 8 {
		pad = 8
	}
	var notes []Note
	for off := uint64(0); off < uint64(len(data)); {
		if uint64(len(data))-off < 12 {
			if allZero(data[off:]) {
				break // trailing padding
			}
			return nil, fmt.Errorf("truncated note header at offset %d", off)
		}
		namesz := uint64(bo.Uint32(data[off:]))
		descsz := uint64(bo.Uint32(data[off+4:]))
		typ := bo.Uint32(data[off+8:])
		off += 12
		if namesz > uint64(len(data))-off {
			return nil, fmt.Errorf("note name at offset %d runs past the section", off)
		}
		name := data[off : off+namesz]
		// The descriptor and the next note start at aligned offsets (the
		// section itself is aligned).
		off = roundUp(off+namesz, pad)
		if off > uint64(len(data)) || descsz > uint64(len(data))-off {
			return nil, fmt.Errorf("note descriptor at offset %d runs past the section", off)
		}
		desc := data[off : off+descsz]
		off = roundUp(off+descsz, pad)
		notes = append(notes, Note{Owner: string(bytes.TrimRight(name, "\x00")), Type: typ, Desc: desc})
	}
	return notes, nil
}

func roundUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Stapsdt is the decoded descriptor of one .note.stapsdt note, addresses
// as written (not adjusted).
type Stapsdt struct {
	PC, Base, Semaphore uint64
	Provider, Name      string
	Args                string
}

// ParseStapsdt decodes a stapsdt note descriptor: three addresses of
// addrSize (4 or 8) bytes, then the NUL-terminated provider, name and
// argument strings.
func ParseStapsdt(desc []byte, bo binary.ByteOrder, addrSize int) (*Stapsdt, error) {
	if addrSize != 4 && addrSize != 8 {
		return nil, fmt.Errorf("stapsdt note: address size %d", addrSize)
	}
	if len(desc) < 3*addrSize {
		return nil, fmt.Errorf("stapsdt note: descriptor of %d bytes is too short", len(desc))
	}
	addr := func(i int) uint64 {
		b := desc[i*addrSize:]
		if addrSize == 4 {
			return uint64(bo.Uint32(b))
		}
		return bo.Uint64(b)
	}
	sd := &Stapsdt{PC: addr(0), Base: addr(1), Semaphore: addr(2)}
	rest := desc[3*addrSize:]
	var strs [3]string
	for i := range strs {
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			if i == 2 {
				// Tolerate an argument string that runs to the end.
				strs[i] = string(rest)
				rest = nil
				break
			}
			return nil, fmt.Errorf("stapsdt note: unterminated string")
		}
		strs[i], rest = string(rest[:j]), rest[j+1:]
	}
	sd.Provider, sd.Name, sd.Args = strs[0], strs[1], strs[2]
	if sd.Provider == "" || sd.Name == "" {
		return nil, fmt.Errorf("stapsdt note: empty provider or probe name")
	}
	return sd, nil
}

// symTable finds symbol addresses for rip-relative and absolute operands.
type symTable struct{ m map[string]uint64 }

func loadSymbols(ef *elf.File) *symTable {
	t := &symTable{m: map[string]uint64{}}
	add := func(syms []elf.Symbol) {
		for _, s := range syms {
			if s.Section == elf.SHN_UNDEF || s.Name == "" {
				continue
			}
			if _, ok := t.m[s.Name]; !ok {
				t.m[s.Name] = s.Value
			}
		}
	}
	if syms, err := ef.Symbols(); err == nil {
		add(syms)
	}
	if syms, err := ef.DynamicSymbols(); err == nil {
		add(syms)
	}
	return t
}

func (t *symTable) lookup(name string) (uint64, bool) {
	v, ok := t.m[name]
	return v, ok
}
