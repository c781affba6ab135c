package check

import (
	"fmt"
	"strings"

	"github.com/sonde-trace/sonde/internal/probe"
)

// Kind classifies D types.
type Kind int

// Type kinds.
const (
	Void    Kind = iota
	Int          // integers of Size bytes, Signed or not
	String       // D's string: a bounded, NUL-terminated buffer
	Pointer      // an address; Elem is what it points to
	Stack        // stack() / ustack() values
	Sym          // sym()/func()/usym()/ufunc()/mod()/umod()/uaddr() values
	Struct       // struct or union (translated types)
	Array        // fixed array
	Agg          // an aggregation (only as a printa/clear argument)
	Buffer       // copyin() result: raw bytes in scratch
)

// StrRepr says how a string value is represented in BPF.
type StrRepr int

// String representations.
const (
	StrBuf       StrRepr = iota // bytes in a buffer of Size
	StrProbeProv                // the probe ID; the string is the probe's provider
	StrProbeMod
	StrProbeFunc
	StrProbeName
)

// SymKind distinguishes the symbol conversions.
type SymKind int

// Symbol kinds.
const (
	SymKernel SymKind = iota // sym, func
	SymUser                  // usym, ufunc
	SymMod                   // mod
	SymUMod                  // umod
	SymUAddr                 // uaddr
)

// Type is a D type as the checker and code generator see it.
type Type struct {
	Kind   Kind
	Size   int // bytes; for String the buffer size including the NUL
	Signed bool
	Elem   *Type
	Name   string // C spelling, for messages
	Repr   StrRepr
	User   bool    // Stack: ustack; Pointer: userland
	Depth  int     // Stack: frames
	SymK   SymKind // Sym
	Fields []*Field
	Src    *probe.Struct // Struct: a provider's structure, read in place
	// Alts are, for args[n] of a clause whose probes give structures of
	// one name that differ (tcp:::send's tcpsinfo_t and receive's), the
	// other probes' structures: a member may be used only where each of
	// them holds it alike.
	Alts []*probe.Struct
	// Align is a declared struct's or union's alignment in bytes; 0 while
	// it is only a forward declaration (incomplete). See decl.go.
	Align int
	Union bool // Struct: a union
	// Func: a function type (Kind Void, no size: it cannot be an object),
	// returning Elem; only pointers to one and extern prototypes are made.
	Func bool
}

// Field is a struct member.
type Field struct {
	Name   string
	Type   *Type
	Offset int // bytes from the start of the struct (of the storage unit, for a bit-field)
	Bits   int // bit-field width, 0 when the member is not a bit-field
	BitOff int // bit-field: bits from the start of its storage unit
	// Kernel names the kernel struct (without "struct ") in whose BTF
	// this member's offset is found when the program is loaded (a
	// relocation, ktypes.go); empty when Offset is final.
	Kernel string
}

// Common types.
var (
	TVoid   = &Type{Kind: Void, Name: "void"}
	TInt    = &Type{Kind: Int, Size: 4, Signed: true, Name: "int"}
	TUint   = &Type{Kind: Int, Size: 4, Name: "uint_t"}
	TLong   = &Type{Kind: Int, Size: 8, Signed: true, Name: "int64_t"}
	TUlong  = &Type{Kind: Int, Size: 8, Name: "uint64_t"}
	TChar   = &Type{Kind: Int, Size: 1, Signed: true, Name: "char"}
	TUchar  = &Type{Kind: Int, Size: 1, Name: "uint8_t"}
	TShort  = &Type{Kind: Int, Size: 2, Signed: true, Name: "short"}
	TUshort = &Type{Kind: Int, Size: 2, Name: "uint16_t"}
	TPtr    = &Type{Kind: Pointer, Size: 8, Elem: TVoid, Name: "void *"}
	TAgg    = &Type{Kind: Agg, Name: "aggregation"}
)

// StringType returns a string type of buffer size n.
func StringType(n int) *Type { return &Type{Kind: String, Size: n, Name: "string"} }

// IsInt reports whether t is an integer (or pointer, usable as one).
func (t *Type) IsInt() bool { return t != nil && (t.Kind == Int || t.Kind == Pointer) }

// IsScalar reports whether t is held in a register.
func (t *Type) IsScalar() bool { return t != nil && (t.Kind == Int || t.Kind == Pointer) }

func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	if t.Name != "" {
		return t.Name
	}
	switch t.Kind {
	case Pointer:
		return t.Elem.String() + " *"
	case Stack:
		return "stack"
	case Sym:
		return "symbol"
	}
	return fmt.Sprintf("type(%d)", t.Kind)
}

// Same reports whether a and b are the same type for assignment purposes.
func Same(a, b *Type) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Int:
		return a.Size == b.Size && a.Signed == b.Signed
	case String, Pointer, Stack, Sym:
		return true
	}
	return a == b
}

// intTypes maps C integer spellings to types.
var intTypes = map[string]*Type{
	"char": TChar, "signed char": TChar, "unsigned char": TUchar, "uchar_t": TUchar,
	"short": TShort, "short int": TShort, "signed short": TShort, "unsigned short": TUshort,
	"unsigned short int": TUshort, "ushort_t": TUshort,
	"int": TInt, "signed": TInt, "signed int": TInt, "unsigned": TUint, "unsigned int": TUint, "uint_t": TUint,
	"long": TLong, "long int": TLong, "signed long": TLong, "unsigned long": TUlong, "unsigned long int": TUlong,
	"long long": TLong, "long long int": TLong, "signed long long": TLong,
	"unsigned long long": TUlong, "unsigned long long int": TUlong, "ulong_t": TUlong, "u_longlong_t": TUlong, "longlong_t": TLong,
	"int8_t": TChar, "int16_t": TShort, "int32_t": TInt, "int64_t": TLong,
	"uint8_t": TUchar, "uint16_t": TUshort, "uint32_t": TUint, "uint64_t": TUlong,
	"u8": TUchar, "u16": TUshort, "u32": TUint, "u64": TUlong, "s8": TChar, "s16": TShort, "s32": TInt, "s64": TLong,
	"__u8": TUchar, "__u16": TUshort, "__u32": TUint, "__u64": TUlong, "__s8": TChar, "__s16": TShort, "__s32": TInt, "__s64": TLong,
	"intptr_t": TLong, "uintptr_t": TUlong, "size_t": TUlong, "ssize_t": TLong, "off_t": TLong, "loff_t": TLong,
	"pid_t": TInt, "uid_t": TUint, "gid_t": TUint, "id_t": TInt, "processorid_t": TInt, "hrtime_t": TLong,
	"time_t": TLong, "clock_t": TLong, "key_t": TInt, "mode_t": TUint, "umode_t": TUshort, "dev_t": TUlong,
	"ino_t": TUlong, "nlink_t": TUlong, "blkcnt_t": TLong, "blksize_t": TLong, "qid_t": TUint, "timer_t": TInt,
	"clockid_t": TInt, "mqd_t": TInt, "key_serial_t": TInt, "aio_context_t": TUlong, "rwf_t": TInt,
	"bool": TInt, "_Bool": TUchar, "fd_t": TInt, "ipaddr_t": TUint, "in_addr_t": TUint, "socklen_t": TUint,
	"sa_family_t": TUshort, "in_port_t": TUshort, "zoneid_t": TInt, "taskid_t": TInt, "projid_t": TInt,
	"dtrace_id_t": TUint, "dtrace_epid_t": TUint, "psetid_t": TInt, "poolid_t": TInt, "major_t": TUint, "minor_t": TUint,
	// the other integer typedef names the parser knows (parser.builtinTypes)
	"intmax_t": TLong, "uintmax_t": TUlong, "ptrdiff_t": TLong, "off64_t": TLong, "chipid_t": TInt,
	"lgrp_id_t": TInt, "daddr_t": TLong, "u_char": TUchar, "u_short": TUshort, "u_int": TUint, "u_long": TUlong,
	// sys/types.h (illumos) and linux/types.h both spell these
	"uint": TUint, "ushort": TUshort, "ulong": TUlong, "unchar": TUchar,
	"boolean_t": TInt, "caddr_t": {Kind: Int, Size: 8, Name: "caddr_t"},
}

// canonIntWords spells an integer type written with C's keywords in any
// order ("long unsigned int") as intTypes does ("unsigned long int"); ok
// is false when words are not only integer keywords.
func canonIntWords(words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	n := map[string]int{}
	for _, w := range words {
		switch w {
		case "signed", "unsigned", "short", "long", "int", "char":
			n[w]++
		default:
			return "", false
		}
	}
	if n["signed"]+n["unsigned"] > 1 || n["short"]+n["char"] > 1 || n["int"] > 1 || n["long"] > 2 ||
		(n["long"] > 0 && n["short"]+n["char"] > 0) || (n["char"] > 0 && n["int"] > 0) {
		return "", false
	}
	sign := ""
	if n["unsigned"] > 0 {
		sign = "unsigned "
	}
	if n["char"] > 0 {
		if n["signed"] > 0 {
			sign = "signed "
		}
		return sign + "char", true
	}
	size := [...]string{"", "long ", "long long "}[n["long"]]
	if n["short"] > 0 {
		size = "short "
	}
	return sign + size + "int", true
}

// ParseCType turns a C type spelling from a provider (e.g. "const char *",
// "unsigned long", "struct stat *") into a Type. Unknown names become
// 64-bit integers (pointers when spelled with *).
func ParseCType(s string) *Type {
	s = strings.TrimSpace(s)
	stars := 0
	for strings.HasSuffix(s, "*") {
		stars++
		s = strings.TrimSpace(strings.TrimSuffix(s, "*"))
	}
	words := strings.Fields(s)
	var kept []string
	user := false
	for _, w := range words {
		switch w {
		case "const", "volatile", "restrict", "__restrict", "__user":
			if w == "__user" {
				user = true
			}
			continue
		}
		kept = append(kept, w)
	}
	base := strings.Join(kept, " ")
	var t *Type
	if it, ok := intTypes[base]; ok {
		t = it
	} else if base == "string" {
		t = StringType(256)
	} else if base == "void" {
		t = TVoid
	} else {
		t = &Type{Kind: Int, Size: 8, Name: base}
		if stars == 0 {
			t = &Type{Kind: Int, Size: 8, Signed: false, Name: base}
		}
	}
	for i := 0; i < stars; i++ {
		name := t.String() + " *"
		if strings.HasSuffix(t.String(), "*") {
			name = t.String() + "*"
		}
		t = &Type{Kind: Pointer, Size: 8, Elem: t, Name: name, User: user}
	}
	return t
}
