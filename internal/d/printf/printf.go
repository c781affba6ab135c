// Package printf parses the formats of D's printf(), printa() and
// system(): their conversions, the argument classes each accepts and the
// errors DTrace reports for bad ones, after dt_printf_create() and the
// conversion table _dtrace_conversions[] in libdtrace/common/dt_printf.c.
// It is a leaf of the front end: the checker types arguments against a
// parsed format, and package format renders values with one.
package printf

import (
	"fmt"
	"strings"
)

// ArgClass says what an argument of a conversion may be. It is a set: a
// conversion accepts an argument whose class intersects Accepts.
type ArgClass uint

// Argument classes, after the pfcheck_* functions of dt_printf.c.
const (
	ArgInt      ArgClass = 1 << iota // any integer type (pfcheck_xint)
	ArgSmallInt                      // integer no wider than int: %c, %C (pfcheck_csi)
	ArgInt64                         // 64-bit integer: %Y, %T (pfcheck_time)
	ArgPointer                       // pointer (pfcheck_addr)
	ArgString                        // string or char array (pfcheck_str)
	ArgStack                         // stack() or ustack() (pfcheck_stack)
	ArgSymAddr                       // kernel symbol address: sym(), func(), mod() (pfcheck_kaddr)
	ArgUSymAddr                      // user symbol address: usym(), ufunc(), uaddr(), umod() (pfcheck_uaddr)
	ArgFloat                         // floating point (pfcheck_fp)
	ArgAgg                           // the aggregation's result (%@ in printa)
)

// String names the classes, for messages.
func (c ArgClass) String() string {
	names := []string{"integer", "small integer", "64-bit integer", "pointer", "string",
		"stack", "symbol address", "user symbol address", "floating point", "aggregation"}
	var parts []string
	for i, n := range names {
		if c&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " or ")
}

// Kind is the pfprint_* function DTrace uses to print a conversion.
type Kind uint8

// Print kinds.
const (
	Sint    Kind = iota // pfprint_sint: sign-extend from the argument's size
	Uint                // pfprint_uint: zero-extend from the argument's size
	Dint                // pfprint_dint: %d, signed or unsigned by the argument's type
	Float               // pfprint_fp
	Addr                // pfprint_addr: %a
	UAddr               // pfprint_uaddr: %A
	Stack               // pfprint_stack: %k
	Time                // pfprint_time: %Y
	Time822             // pfprint_time822: %T
	Cstr                // pfprint_cstr: %s
	Estr                // pfprint_estr: %S
	Echr                // pfprint_echr: %C
	Pct                 // pfprint_pct: %%
)

// convDef is one entry of DTrace's conversion dictionary.
type convDef struct {
	name    string   // "d", "lld", "hx", ...
	ofmt    byte     // conversion letter handed to libc
	proto   string   // prototype text for D_PRINTF_ARG_TYPE messages
	accepts ArgClass // what pfcheck_* accepts
	print   Kind
}

// Prototype texts of dt_printf.c.
const (
	protoXint  = "char, short, int, long, or long long"
	protoCsi   = "char, short, or int"
	protoFp    = "float, double, or long double"
	protoAddr  = "pointer or integer"
	protoUaddr = "pointer or integer (with -p/-c) or _usymaddr (without -p/-c)"
	protoCstr  = "char [] or string (or use stringof)"
)

// convTable is _dtrace_conversions[] of dt_printf.c, less the wide-character
// conversions (%lc, %ls, %wc, %ws) and the network ones (%I, %P) that need
// name-service lookups, plus the "hh" size prefix, which DTrace lacks but
// which sonde accepts as a courtesy (hh = char).
//
// %e, %f and %g also accept integers, converted to double: DTrace's
// pfcheck_fp accepts floating-point types only, and D has hardly any.
var convTable = func() map[string]convDef {
	defs := []convDef{
		{"a", 's', protoAddr, ArgPointer | ArgInt | ArgSymAddr, Addr},
		{"A", 's', protoUaddr, ArgUSymAddr | ArgPointer | ArgInt, UAddr},
		{"c", 'c', protoCsi, ArgSmallInt, Sint},
		{"C", 's', protoCsi, ArgSmallInt, Echr},
		{"d", 'd', protoXint, ArgInt, Dint},
		{"e", 'e', protoFp, ArgFloat | ArgInt, Float},
		{"E", 'E', protoFp, ArgFloat | ArgInt, Float},
		{"f", 'f', protoFp, ArgFloat | ArgInt, Float},
		{"g", 'g', protoFp, ArgFloat | ArgInt, Float},
		{"G", 'G', protoFp, ArgFloat | ArgInt, Float},
		{"hd", 'd', "short", ArgInt, Sint},
		{"hi", 'i', "short", ArgInt, Sint},
		{"ho", 'o', "unsigned short", ArgInt, Uint},
		{"hu", 'u', "unsigned short", ArgInt, Uint},
		{"hx", 'x', "short", ArgInt, Uint},
		{"hX", 'X', "short", ArgInt, Uint},
		{"hhd", 'd', "char", ArgInt, Sint},
		{"hhi", 'i', "char", ArgInt, Sint},
		{"hho", 'o', "unsigned char", ArgInt, Uint},
		{"hhu", 'u', "unsigned char", ArgInt, Uint},
		{"hhx", 'x', "char", ArgInt, Uint},
		{"hhX", 'X', "char", ArgInt, Uint},
		{"i", 'i', protoXint, ArgInt, Sint},
		{"k", 's', "stack", ArgStack, Stack},
		{"ld", 'd', "long", ArgInt, Sint},
		{"li", 'i', "long", ArgInt, Sint},
		{"lo", 'o', "unsigned long", ArgInt, Uint},
		{"lu", 'u', "unsigned long", ArgInt, Uint},
		{"lx", 'x', "long", ArgInt, Uint},
		{"lX", 'X', "long", ArgInt, Uint},
		{"lld", 'd', "long long", ArgInt, Sint},
		{"lli", 'i', "long long", ArgInt, Sint},
		{"llo", 'o', "unsigned long long", ArgInt, Uint},
		{"llu", 'u', "unsigned long long", ArgInt, Uint},
		{"llx", 'x', "long long", ArgInt, Uint},
		{"llX", 'X', "long long", ArgInt, Uint},
		{"Le", 'e', "long double", ArgFloat | ArgInt, Float},
		{"LE", 'E', "long double", ArgFloat | ArgInt, Float},
		{"Lf", 'f', "long double", ArgFloat | ArgInt, Float},
		{"Lg", 'g', "long double", ArgFloat | ArgInt, Float},
		{"LG", 'G', "long double", ArgFloat | ArgInt, Float},
		{"o", 'o', protoXint, ArgInt, Uint},
		{"p", 'x', protoAddr, ArgPointer | ArgInt, Uint},
		{"s", 's', protoCstr, ArgString, Cstr},
		{"S", 's', protoCstr, ArgString, Estr},
		{"T", 's', "int64_t", ArgInt64, Time822},
		{"u", 'u', protoXint, ArgInt, Uint},
		{"x", 'x', protoXint, ArgInt, Uint},
		{"X", 'X', protoXint, ArgInt, Uint},
		{"Y", 's', "int64_t", ArgInt64, Time},
		{"%", '%', "void", 0, Pct},
	}
	m := make(map[string]convDef, len(defs))
	for _, d := range defs {
		m[d.name] = d
	}
	return m
}()

// MaxWidth bounds widths and precisions so that a hostile "%*d" cannot make
// a formatter allocate gigabytes; libc would try.
const MaxWidth = 1 << 16

// Conv is one conversion of a format.
type Conv struct {
	Index     int      // DTrace's conversion number, from 1, as in "format conversion #2"
	Offset    int      // byte offset of the '%' in Printf.Src
	Verb      byte     // conversion letter: 'd','i','u','o','x','X','c','C','s','S','p','a','A','k','e','E','f','g','G','Y','T','%' (for %@d, 'd')
	Name      string   // DTrace's conversion name: size prefix and letter, e.g. "lld", "hx"
	Size      string   // size prefix: "", "h", "hh", "l", "ll" or "L"
	Flags     string   // effective flags in DTrace's order, a subset of "#0-+' "
	Width     int      // fixed width, 0 when none ("%?" sets 16)
	Prec      int      // fixed precision, 0 when none (DTrace ignores ".0")
	WidthStar bool     // width comes from an argument ("%*d")
	PrecStar  bool     // precision comes from an argument ("%.*d")
	Agg       bool     // the '@' flag: the aggregation's result (printa only)
	Accepts   ArgClass // what the value argument may be; ArgAgg for %@, 0 for %%
	Proto     string   // DTrace's prototype text for D_PRINTF_ARG_TYPE messages
	Ofmt      byte     // the conversion letter DTrace hands to libc ('x' for %p)
	Print     Kind     // how DTrace prints it
}

// Args is the number of arguments (or printa key records) the conversion
// consumes: one per '*', plus the value itself unless it is %% or %@.
func (c *Conv) Args() int {
	n := 0
	if c.WidthStar {
		n++
	}
	if c.PrecStar {
		n++
	}
	if c.Verb != '%' && !c.Agg {
		n++
	}
	return n
}

// NumArgs is the number of arguments the format consumes (for printa(),
// the number of key records): the sum of Args over its conversions.
func (p *Spec) NumArgs() int {
	n := 0
	for i := range p.Convs {
		n += p.Convs[i].Args()
	}
	return n
}

// Spec is a parsed printf(), printa() or similar format. An empty Src is
// accepted here; the D compiler rejects it (D_PRINTF_FMT_EMPTY, "printf( )
// format string is empty").
type Spec struct {
	Src    string
	Convs  []Conv
	Pieces []Piece // the format in order: text, then a conversion
}

// Piece is literal text followed by a conversion (Conv < 0: text only).
type Piece struct {
	Text string
	Conv int // index into Convs
}

// Error is a format the D compiler rejects. DTrace reports these under the
// D_SYNTAX tag, e.g. "[D_SYNTAX] line 18: format conversion #1 is
// undefined: %Z" (test/unittest/printf/err.D_SYNTAX.badconv3.r in
// dtrace-utils).
type Error struct {
	Tag    string // "D_SYNTAX"
	Index  int    // conversion number, from 1
	Offset int    // byte offset of the conversion's '%'
	Msg    string // DTrace's message text, without the tag and position
}

func (e *Error) Error() string { return e.Msg }

// Parse parses a format whose escapes the D parser has already
// resolved. Its errors are DTrace's (dt_printf_create): unsupported
// positional formats, a second '*' or '.', "%%" combined with flags, a
// missing or undefined conversion.
func Parse(src string) (*Spec, error) {
	p := &Spec{Src: src}
	q := 0
	for {
		i := strings.IndexByte(src[q:], '%')
		if i < 0 {
			break
		}
		pos := q + i
		c, end, err := parseConv(src, pos, len(p.Convs)+1)
		if err != nil {
			return nil, err
		}
		p.Convs = append(p.Convs, c)
		p.Pieces = append(p.Pieces, Piece{Text: src[q:pos], Conv: len(p.Convs) - 1})
		q = end
	}
	if q < len(src) || src == "" {
		p.Pieces = append(p.Pieces, Piece{Text: src[q:], Conv: -1})
	}
	return p, nil
}

// parseConv parses the conversion whose '%' is at src[pos] and returns it
// with the offset just past it. It follows the fmt_switch loop of
// dt_printf_create.
func parseConv(src string, pos, index int) (Conv, int, error) {
	c := Conv{Index: index, Offset: pos}
	var (
		zpad, left, alt, spos, group, space bool
		digits, dot                         int
		name                                []byte
	)
	fail := func(format string, a ...any) (Conv, int, error) {
		return Conv{}, 0, &Error{Tag: "D_SYNTAX", Index: index, Offset: pos,
			Msg: fmt.Sprintf("format conversion #%d ", index) + fmt.Sprintf(format, a...)}
	}
	p := pos
	for {
		p++
		if p >= len(src) {
			return fail("name expected before end of format string")
		}
		ch := src[p]
		switch {
		case ch >= '0' && ch <= '9':
			if dot == 0 && digits == 0 && ch == '0' {
				zpad, left = true, false
				continue
			}
			n := 0
			for p < len(src) && src[p] >= '0' && src[p] <= '9' {
				if n < MaxWidth {
					n = n*10 + int(src[p]-'0')
				}
				p++
			}
			n = min(n, MaxWidth)
			if dot != 0 {
				c.Prec = n
			} else {
				c.Width = n
			}
			p--
			digits++
		case ch == '#':
			alt = true
		case ch == '*':
			if dot != 0 {
				if c.PrecStar {
					// DTrace's message always says "precision": the
					// test selecting the word is on a nonzero flag.
					return fail("has more than one '*' specified for the output precision")
				}
				c.PrecStar = true
			} else {
				if c.WidthStar {
					return fail("has more than one '*' specified for the output precision")
				}
				c.WidthStar = true
			}
		case ch == '+':
			spos = true
		case ch == '-':
			left, zpad = true, false
		case ch == '.':
			if dot != 0 {
				return fail("has more than one '.' specified")
			}
			dot++
			digits = 0
		case ch == '?':
			c.Width = 16 // LP64
		case ch == '@':
			c.Agg = true
		case ch == '\'':
			group = true
		case ch == ' ':
			space = true
		case ch == '$':
			return fail("uses unsupported positional format (%%n$)")
		case ch == '%' && src[p-1] != '%':
			return fail("cannot be combined with other format flags: %%%%")
		case ch == 'h' || ch == 'l' || ch == 'L' || ch == 'w':
			if len(name) < 6 {
				name = append(name, ch)
			}
		case ch == 0:
			// A NUL ends a C string: DTrace never sees past it.
			return fail("name expected before end of format string")
		default:
			name = append(name, ch)
			def, ok := convTable[string(name)]
			if !ok {
				return fail("is undefined: %%%s", name)
			}
			c.Ofmt, c.Print = def.ofmt, def.print
			c.Name = def.name
			c.Verb = ch
			c.Size = string(name[:len(name)-1])
			c.Accepts, c.Proto = def.accepts, def.proto
			if c.Agg {
				c.Accepts = ArgAgg
			}
			var f []byte
			for _, fl := range []struct {
				on bool
				c  byte
			}{{alt, '#'}, {zpad, '0'}, {left, '-'}, {spos, '+'}, {group, '\''}, {space, ' '}} {
				if fl.on {
					f = append(f, fl.c)
				}
			}
			c.Flags = string(f)
			return c, p + 1, nil
		}
	}
}
