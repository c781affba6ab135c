package sym

// ELF symbol tables of user-space objects (executables and shared
// libraries), read with debug/elf. Only functions are kept: STT_FUNC and
// STT_GNU_IFUNC symbols that are defined and sized, from .symtab and
// .dynsym merged. A stripped object (no .symtab) gets its .symtab from a
// separate debug file when one is installed: found by build ID
// (/usr/lib/debug/.build-id/xx/yyyy.debug) or by .gnu_debuglink (beside
// the object, in its .debug/ subdirectory, or under /usr/lib/debug/<dir>/),
// and accepted only when its build ID or CRC matches.
//
// Which symbol names an address follows libproc's Plookup_by_addr
// (illumos Psymtab.c, sym_by_addr_binary and byaddr_cmp_common): the sized
// symbol with the highest start that contains the address; among symbols
// that share a start, a global or weak one before a local one, one not
// starting with '$', the one with fewer leading underscores, then (an
// addition, so that the choice never depends on table order) global
// before weak, the smaller, and the lesser name. So glibc's weak "write"
// wins over the global "__write" and "__libc_write" at the same address.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Symbol is a function of an ELF object.
type Symbol struct {
	Name  string // as in the symbol table (mangled, without @version)
	Value uint64 // st_value: the ELF virtual address
	Size  uint64 // st_size
	bind  elf.SymBind
}

// End is the first address past the function.
func (s Symbol) End() uint64 { return s.Value + s.Size }

// segment is a PT_LOAD program header.
type segment struct {
	off, vaddr, filesz, memsz uint64
	flags                     elf.ProgFlag
}

// File is the symbol table and load layout of one ELF object. It is
// immutable once opened and safe for concurrent use.
type File struct {
	Path    string   // the path it was opened by
	Type    elf.Type // elf.ET_EXEC or elf.ET_DYN (PIE executables and libraries)
	BuildID string   // hex NT_GNU_BUILD_ID, "" when none
	// DebugFile is the separate debug file whose .symtab was read, "" when
	// none was needed or found.
	DebugFile string

	loads []segment
	syms  []Symbol // by Value, then best first
	// maxEnd[i] is the greatest End() of syms[:i+1]: a backward walk for
	// the symbols containing an address stops where it is <= the address.
	maxEnd []uint64
}

// OpenFile reads the function symbols of the ELF object at path, following
// its debug link or build ID to a separate debug file when it is stripped.
func OpenFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseFile(f, path, "")
}

// parseFile reads an ELF object from r. path is the object's path as the
// process that maps it sees it, and root the prefix that makes such paths
// usable from here ("" for our own mount namespace, "/proc/PID/root" for
// another process's): separate debug files are looked for under root first,
// then under ours.
func parseFile(r io.ReaderAt, path, root string) (*File, error) {
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer ef.Close()
	f := &File{Path: path, Type: ef.Type, BuildID: buildID(ef)}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			f.loads = append(f.loads, segment{p.Off, p.Vaddr, p.Filesz, p.Memsz, p.Flags})
		}
	}
	// A .symtab without functions (strip --strip-unneeded) counts as
	// stripped.
	es, _ := ef.Symbols()
	syms := appendFuncs(nil, es)
	if len(syms) == 0 {
		if es, dpath := findDebug(ef, f.BuildID, path, root); es != nil {
			syms = appendFuncs(syms, es)
			f.DebugFile = dpath
		}
	}
	es, _ = ef.DynamicSymbols()
	syms = appendFuncs(syms, es)
	f.setSymbols(syms)
	return f, nil
}

// appendFuncs appends the defined, sized functions among es.
func appendFuncs(syms []Symbol, es []elf.Symbol) []Symbol {
	for _, s := range es {
		switch elf.ST_TYPE(s.Info) {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
		default:
			continue
		}
		if s.Section == elf.SHN_UNDEF || s.Size == 0 || s.Value == 0 || s.Name == "" {
			continue
		}
		syms = append(syms, Symbol{Name: s.Name, Value: s.Value, Size: s.Size, bind: elf.ST_BIND(s.Info)})
	}
	return syms
}

// setSymbols sorts syms, drops exact duplicates (.symtab and .dynsym list
// exported functions twice) and builds maxEnd.
func (f *File) setSymbols(syms []Symbol) {
	sort.Slice(syms, func(i, j int) bool {
		if syms[i].Value != syms[j].Value {
			return syms[i].Value < syms[j].Value
		}
		return better(syms[i], syms[j])
	})
	out := syms[:0]
	for i, s := range syms {
		if i > 0 && s.Value == syms[i-1].Value && s.Name == syms[i-1].Name && s.Size == syms[i-1].Size {
			continue
		}
		out = append(out, s)
	}
	f.syms = out
	f.maxEnd = make([]uint64, len(out))
	var m uint64
	for i, s := range out {
		m = max(m, s.End())
		f.maxEnd[i] = m
	}
}

// better reports whether a is preferred to b as the name of their common
// start address (see the comment at the top of the file).
func better(a, b Symbol) bool {
	if al, bl := a.bind == elf.STB_LOCAL, b.bind == elf.STB_LOCAL; al != bl {
		return bl
	}
	if ad, bd := strings.HasPrefix(a.Name, "$"), strings.HasPrefix(b.Name, "$"); ad != bd {
		return bd
	}
	if au, bu := leadingUnderscores(a.Name), leadingUnderscores(b.Name); au != bu {
		return au < bu
	}
	if ag, bg := a.bind == elf.STB_GLOBAL, b.bind == elf.STB_GLOBAL; ag != bg {
		return ag
	}
	if a.Size != b.Size {
		return a.Size < b.Size
	}
	return a.Name < b.Name
}

func leadingUnderscores(s string) int {
	n := 0
	for n < len(s) && s[n] == '_' {
		n++
	}
	return n
}

// Symbols returns the object's functions sorted by address. The slice is
// shared: do not modify it.
func (f *File) Symbols() []Symbol { return f.syms }

// Lookup returns the function that contains the ELF virtual address vaddr.
func (f *File) Lookup(vaddr uint64) (Symbol, bool) {
	i := sort.Search(len(f.syms), func(i int) bool { return f.syms[i].Value > vaddr }) - 1
	found := -1
	for ; i >= 0 && f.maxEnd[i] > vaddr; i-- {
		s := f.syms[i]
		if found >= 0 && s.Value != f.syms[found].Value {
			break
		}
		if vaddr < s.End() {
			found = i // keeps moving to the best of a common start
		}
	}
	if found < 0 {
		return Symbol{}, false
	}
	return f.syms[found], true
}

// OffsetToVaddr translates an offset in the file to the ELF virtual address
// it is loaded at, through the PT_LOAD program headers.
func (f *File) OffsetToVaddr(off uint64) (uint64, bool) {
	for _, l := range f.loads {
		if off >= l.off && off-l.off < l.filesz {
			return l.vaddr + (off - l.off), true
		}
	}
	return 0, false
}

// VaddrToOffset translates an ELF virtual address to its offset in the file
// (where uprobes attach).
func (f *File) VaddrToOffset(vaddr uint64) (uint64, bool) {
	for _, l := range f.loads {
		if vaddr >= l.vaddr && vaddr-l.vaddr < l.filesz {
			return l.off + (vaddr - l.vaddr), true
		}
	}
	return 0, false
}

// Resolve returns the functions called name: the symbol table's name, or
// its demangled form with or without the parameter list
// ("ns::Class::method(int)" or "ns::Class::method", which names every
// overload).
func (f *File) Resolve(name string) []Symbol {
	var out []Symbol
	for _, s := range f.syms {
		if s.Name == name {
			out = append(out, s)
			continue
		}
		if !isMangled(s.Name) {
			continue
		}
		d := Demangle(s.Name)
		if d == name || stripParams(d) == name {
			out = append(out, s)
		}
	}
	return out
}

// ResolveFunc opens the ELF object at path and returns the functions
// called name (see File.Resolve); an error when there is none.
func ResolveFunc(path, name string) ([]Symbol, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	s := f.Resolve(name)
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: no function %q", path, name)
	}
	return s, nil
}

// buildID returns the hex NT_GNU_BUILD_ID of ef, from its note sections or,
// without section headers, its PT_NOTE segments.
func buildID(ef *elf.File) string {
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		if data, err := s.Data(); err == nil {
			if id := noteBuildID(data, ef.ByteOrder); id != "" {
				return id
			}
		}
	}
	for _, p := range ef.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > 1<<20 {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			continue
		}
		if id := noteBuildID(data, ef.ByteOrder); id != "" {
			return id
		}
	}
	return ""
}

// noteBuildID finds the GNU build ID note among notes.
func noteBuildID(data []byte, bo binary.ByteOrder) string {
	const ntGNUBuildID = 3
	align := func(n uint32) int { return int((n + 3) &^ 3) }
	for len(data) >= 12 {
		namesz, descsz, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
		data = data[12:]
		if align(namesz) > len(data) || namesz > 1<<16 {
			return ""
		}
		name := data[:namesz]
		data = data[align(namesz):]
		if descsz > 1<<16 || int(descsz) > len(data) {
			return ""
		}
		if typ == ntGNUBuildID && string(name) == "GNU\x00" {
			return hex.EncodeToString(data[:descsz])
		}
		data = data[min(align(descsz), len(data)):]
	}
	return ""
}

// debugLink returns the file name and CRC of ef's .gnu_debuglink.
func debugLink(ef *elf.File) (string, uint32, bool) {
	s := ef.Section(".gnu_debuglink")
	if s == nil {
		return "", 0, false
	}
	data, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	n := bytes.IndexByte(data, 0)
	if n <= 0 {
		return "", 0, false
	}
	at := (n + 4) &^ 3
	if at+4 > len(data) {
		return "", 0, false
	}
	return string(data[:n]), ef.ByteOrder.Uint32(data[at:]), true
}

// errMismatch is a debug file whose build ID or CRC is not the object's.
var errMismatch = errors.New("debug file does not match")

// findDebug looks for the separate debug file of a stripped object, as GDB
// does: by build ID, then by debug link. It returns the debug file's
// .symtab and its path, or nil.
func findDebug(ef *elf.File, id, path, root string) ([]elf.Symbol, string) {
	roots := []string{root}
	if root != "" {
		if a, err := os.Stat(root); err != nil {
			roots = []string{""}
		} else if b, err := os.Stat("/"); err == nil && os.SameFile(a, b) {
			roots = []string{""}
		} else {
			roots = append(roots, "")
		}
	}
	if len(id) > 2 {
		for _, r := range roots {
			p := r + "/usr/lib/debug/.build-id/" + id[:2] + "/" + id[2:] + ".debug"
			if d, err := openDebug(p, func(d *elf.File, _ *os.File) error {
				if buildID(d) != id {
					return errMismatch
				}
				return nil
			}); err == nil {
				return d, p
			}
		}
	}
	name, crc, ok := debugLink(ef)
	if !ok || strings.Contains(name, "/") || !filepath.IsAbs(path) {
		return nil, ""
	}
	dir := filepath.Dir(path)
	for _, r := range roots {
		for _, p := range []string{
			filepath.Join(r, dir, name),
			filepath.Join(r, dir, ".debug", name),
			filepath.Join(r, "/usr/lib/debug", dir, name),
		} {
			if d, err := openDebug(p, func(_ *elf.File, f *os.File) error {
				h := crc32.NewIEEE()
				if _, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62)); err != nil {
					return err
				}
				if h.Sum32() != crc {
					return errMismatch
				}
				return nil
			}); err == nil {
				return d, p
			}
		}
	}
	return nil, ""
}

// openDebug opens the ELF file at p, checks that it has a .symtab and that
// verify accepts it, and returns its symbols.
func openDebug(p string, verify func(*elf.File, *os.File) error) ([]elf.Symbol, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := elf.NewFile(f)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if d.Section(".symtab") == nil {
		return nil, errors.New("no .symtab")
	}
	if err := verify(d, f); err != nil {
		return nil, err
	}
	return d.Symbols()
}
