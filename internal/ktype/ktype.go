// Package ktype gives the D checker the running kernel's types, read from
// its BTF (/sys/kernel/btf/vmlinux): it implements check.TypeResolver, so
// that the front end stays free of BPF and of the kernel.
//
// A kernel struct or union becomes a complete check.Type: its members at
// the offsets BTF gives (members of anonymous structs and unions appear
// as members of the enclosing one, as C lets them be named), bit-fields
// within storage units of their declared type, each member of a named
// struct marked with that struct's name (check.Field.Kernel) so that the
// runtime finds its offset again in the kernel it loads the program into.
// Types are converted lazily: a struct that a member points to stays
// incomplete until KernelType is asked for it (the checker does so when a
// program reads a member through the pointer); one embedded by value is
// converted with its container. BTF is read on the first request.
package ktype

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cilium/ebpf/btf"

	"github.com/sonde-trace/sonde/internal/d/check"
)

// Kernel is the running kernel's types. The zero value is ready; it is
// safe for concurrent use.
type Kernel struct {
	// Load reads the BTF (btf.LoadKernelSpec when nil).
	Load func() (*btf.Spec, error)

	mu      sync.Mutex
	spec    *btf.Spec
	err     error
	loaded  bool
	types   map[btf.Type]*check.Type // converted types, structs possibly unfilled
	filled  map[*check.Type]bool
	sources map[*check.Type]btf.Type // each struct's BTF type, to fill it later
}

// KernelType implements check.TypeResolver: "struct NAME", "union NAME",
// "enum NAME" or a typedef name.
func (k *Kernel) KernelType(name string) *check.Type {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.load() {
		return nil
	}
	kw, bare, tagged := strings.Cut(strings.TrimSpace(name), " ")
	if !tagged {
		bare, kw = kw, ""
	}
	bt := k.find(kw, strings.TrimSpace(bare))
	if bt == nil {
		return nil
	}
	t := k.conv(bt)
	k.fill(t)
	return t
}

// Err is the error reading the kernel's BTF, if any happened.
func (k *Kernel) Err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

func (k *Kernel) load() bool {
	if !k.loaded {
		k.loaded = true
		load := k.Load
		if load == nil {
			load = btf.LoadKernelSpec
		}
		k.spec, k.err = load()
		if k.err != nil {
			k.err = fmt.Errorf("reading the kernel's BTF: %w", k.err)
		}
		k.types = map[btf.Type]*check.Type{}
		k.filled = map[*check.Type]bool{}
		k.sources = map[*check.Type]btf.Type{}
	}
	return k.spec != nil
}

// find returns the kernel type called name of kind kw ("struct", "union",
// "enum", "" for a typedef): a definition rather than a declaration, the
// first of several.
func (k *Kernel) find(kw, name string) btf.Type {
	if name == "" {
		return nil
	}
	cands, err := k.spec.AnyTypesByName(name)
	if err != nil {
		return nil
	}
	for _, c := range cands {
		switch c := c.(type) {
		case *btf.Struct:
			if kw == "struct" {
				return c
			}
		case *btf.Union:
			if kw == "union" {
				return c
			}
		case *btf.Enum:
			if kw == "enum" {
				return c
			}
		case *btf.Typedef:
			if kw == "" {
				return c
			}
		}
	}
	return nil
}

// conv converts bt, leaving structs and unions unfilled.
func (k *Kernel) conv(bt btf.Type) *check.Type {
	if t, ok := k.types[bt]; ok {
		return t
	}
	var t *check.Type
	switch b := bt.(type) {
	case *btf.Int:
		t = &check.Type{Kind: check.Int, Size: int(b.Size), Signed: b.Encoding&(btf.Signed|btf.Char) != 0, Name: b.Name}
		if b.Encoding&btf.Bool != 0 {
			t.Signed = false
		}
	case *btf.Float:
		t = &check.Type{Kind: check.Int, Size: int(b.Size), Signed: true, Name: b.Name}
	case *btf.Enum:
		t = &check.Type{Kind: check.Int, Size: int(b.Size), Signed: b.Signed, Name: "enum " + b.Name}
		if b.Name == "" {
			t.Name = "enum (anon)"
		}
	case *btf.Pointer:
		elem := k.conv(b.Target)
		if anonymous(b.Target) {
			k.fill(elem) // no name to complete it by later
		}
		t = &check.Type{Kind: check.Pointer, Size: 8, Elem: elem, Name: elem.String() + " *"}
	case *btf.Array:
		elem := k.conv(b.Type)
		t = &check.Type{Kind: check.Array, Elem: elem, Size: int(b.Nelems) * elem.Size, Name: fmt.Sprintf("%s [%d]", elem, b.Nelems)}
	case *btf.Struct:
		t = k.structType("struct", b.Name, false, bt)
	case *btf.Union:
		t = k.structType("union", b.Name, true, bt)
	case *btf.Fwd:
		kw := "struct"
		if b.Kind == btf.FwdUnion {
			kw = "union"
		}
		t = &check.Type{Kind: check.Struct, Name: kw + " " + b.Name, Union: b.Kind == btf.FwdUnion}
		if full := k.find(kw, b.Name); full != nil {
			k.sources[t] = full
		}
	case *btf.Typedef:
		t = k.typedef(b)
	case *btf.Const:
		t = k.conv(b.Type)
	case *btf.Volatile:
		t = k.conv(b.Type)
	case *btf.Restrict:
		t = k.conv(b.Type)
	case *btf.TypeTag:
		t = k.conv(b.Type)
	default: // void, functions
		t = check.TVoid
	}
	k.types[bt] = t
	return t
}

// structType is an unfilled struct or union.
func (k *Kernel) structType(kw, name string, union bool, bt btf.Type) *check.Type {
	t := &check.Type{Kind: check.Struct, Name: kw + " " + name, Union: union}
	if name == "" {
		t.Name = kw + " (anon)"
	}
	k.sources[t] = bt
	return t
}

// typedef is a typedef's type under its name; a struct keeps its own
// (typedef struct { ... } name_t takes the typedef's).
func (k *Kernel) typedef(b *btf.Typedef) *check.Type {
	u := k.conv(b.Type)
	if u.Kind == check.Struct {
		if strings.HasSuffix(u.Name, "(anon)") {
			u.Name = b.Name
		}
		return u
	}
	cp := *u
	cp.Name = b.Name
	return &cp
}

// fill completes t (a struct or union) and the structs it embeds.
func (k *Kernel) fill(t *check.Type) {
	if t.Kind != check.Struct || k.filled[t] {
		return
	}
	k.filled[t] = true
	var members []btf.Member
	var size uint32
	named := ""
	switch b := k.sources[t].(type) {
	case *btf.Struct:
		members, size, named = b.Members, b.Size, b.Name
	case *btf.Union:
		members, size = b.Members, b.Size
	default:
		return // a declaration the kernel never defines
	}
	t.Fields = k.fields(members, 0, named)
	t.Size = int(size)
	t.Align = 1
	for _, f := range t.Fields {
		t.Align = max(t.Align, align(f.Type))
	}
}

// fields converts members at bit offset base; members of anonymous
// structs and unions are flattened into the list. Kernel is set on each
// member when kernel (the enclosing named struct) is not empty.
func (k *Kernel) fields(members []btf.Member, base uint32, kernel string) []*check.Field {
	var out []*check.Field
	for _, m := range members {
		ft := k.conv(m.Type)
		off := base + uint32(m.Offset)
		if ft.Kind == check.Struct {
			k.fill(ft)
		}
		if m.Name == "" {
			if ft.Kind == check.Struct {
				out = append(out, k.fields(k.membersOf(ft), off, kernel)...)
			}
			continue
		}
		f := &check.Field{Name: m.Name, Type: ft, Offset: int(off / 8), Kernel: kernel}
		if m.BitfieldSize > 0 {
			unit := uint32(max(ft.Size, 1)) * 8
			f.Offset = int(off / unit * unit / 8)
			f.BitOff = int(off - uint32(f.Offset)*8)
			f.Bits = int(m.BitfieldSize)
			f.Kernel = "" // the offset BTF relocates is a bit offset
			if uint32(f.BitOff+f.Bits) > unit {
				continue // straddles its storage unit: not readable as one
			}
		} else if off%8 != 0 {
			continue
		}
		out = append(out, f)
	}
	return out
}

// membersOf returns the BTF members of an anonymous struct or union.
func (k *Kernel) membersOf(t *check.Type) []btf.Member {
	switch b := k.sources[t].(type) {
	case *btf.Struct:
		return b.Members
	case *btf.Union:
		return b.Members
	}
	return nil
}

// align is a type's alignment on x86-64.
func align(t *check.Type) int {
	switch t.Kind {
	case check.Int:
		return min(max(t.Size, 1), 8)
	case check.Array:
		return align(t.Elem)
	case check.Struct:
		return max(t.Align, 1)
	}
	return 8
}

// anonymous reports whether bt, qualifiers and typedefs aside, is a
// struct or union without a name of its own.
func anonymous(bt btf.Type) bool {
	switch b := btf.UnderlyingType(bt).(type) {
	case *btf.Struct:
		return b.Name == ""
	case *btf.Union:
		return b.Name == ""
	}
	return false
}
