// Package header generates the C header of a USDT provider definition
// (sonde -h): for each probe a PROVIDER_PROBE(args...) macro that fires it
// and a PROVIDER_PROBE_ENABLED() macro that says whether anything is
// tracing it.
//
// The header needs nothing but a GCC-compatible compiler (gcc, clang) and
// an ELF target (x86-64, i386, arm64): it does not include <sys/sdt.h> but
// emits the same thing, a standard SystemTap SDT note (.note.stapsdt) per
// probe site with a semaphore in .probes, so bpftrace, perf and bcc see the
// probes as well as sonde does. The probe site is a 1-byte nop, which every
// tracer probes without writing to the traced program's memory; on x86-64
// a 10-byte nop follows it, which kernels that optimise uprobes there run
// without touching the red zone (see _SONDE_NOP in the generated header).
//
// It also records each probe's native and translated argument types in a
// .note.sonde note (see ../FORMAT.md), read back by usdt.NewFile, so that a
// consumer knows the types with no file besides the binary.
package header

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/usdt"
)

// MaxArgs is the most native arguments a probe may have (as sys/sdt.h).
const MaxArgs = 12

// Options adjust the generated header.
type Options struct {
	// Source names the definition file in the banner comment; "" leaves
	// it out.
	Source string
	// Guard is the include-guard macro. When empty it is derived from the
	// provider names (_SONDE_HTTP_PROVIDER_H); GuardFromPath derives one
	// from the output file name, as dtrace -h does.
	Guard string
}

// GuardFromPath derives an include guard from a header file name:
// "include/http_provider.h" gives "_HTTP_PROVIDER_H".
func GuardFromPath(path string) string {
	base := filepath.Base(path)
	var b strings.Builder
	b.WriteByte('_')
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Error is a problem with the provider definitions, at a position.
type Error struct {
	Pos string // file:line:col, or "" when unknown
	Msg string
}

func (e *Error) Error() string {
	if e.Pos == "" || e.Pos == "-" {
		return e.Msg
	}
	return e.Pos + ": " + e.Msg
}

type provider struct {
	decl   *ast.ProviderDecl
	attrs  []string // #pragma D attributes lines naming this provider
	probes []*probe
}

type probe struct {
	def     *ast.ProbeDef
	macro   string   // HTTP_REQUEST_START
	sem     string   // http_request__start_semaphore
	params  []string // macro parameter names
	types   usdt.ProbeTypes
	summary string // http:::request-start(httpproto_t *p) : (conninfo_t *p, ...)
}

// Generate writes the C header for the provider definitions in progs.
// Declarations other than providers and "#pragma D attributes" (typedefs,
// structs, translators the D compiler needs) do not reach the header.
func Generate(w io.Writer, progs []*ast.Program, opts Options) error {
	provs, other, err := collect(progs)
	if err != nil {
		return err
	}
	guard := opts.Guard
	if guard == "" {
		var names []string
		for _, p := range provs {
			names = append(names, strings.ToUpper(p.decl.Name))
		}
		guard = "_SONDE_" + strings.Join(names, "_") + "_PROVIDER_H"
	}
	if !isIdent(guard) {
		return &Error{Msg: fmt.Sprintf("include guard %q is not a C identifier", guard)}
	}
	bw := bufio.NewWriter(w)
	writeHeader(bw, provs, other, guard, opts.Source)
	return bw.Flush()
}

func collect(progs []*ast.Program) (provs []*provider, otherAttrs []string, err error) {
	byName := map[string]*provider{}
	var attrs []*ast.PragmaDecl
	for _, prog := range progs {
		if prog == nil {
			continue
		}
		for _, d := range prog.Decls {
			switch d := d.(type) {
			case *ast.ProviderDecl:
				if old, dup := byName[d.Name]; dup {
					return nil, nil, &Error{Pos: d.Pos().String(), Msg: fmt.Sprintf("provider %s is already defined at %s", d.Name, old.decl.Pos())}
				}
				p := &provider{decl: d}
				byName[d.Name] = p
				provs = append(provs, p)
			case *ast.PragmaDecl:
				if d.Kind == "attributes" {
					attrs = append(attrs, d)
				}
			}
		}
	}
	if len(provs) == 0 {
		return nil, nil, &Error{Msg: "no provider definitions"}
	}
	for _, a := range attrs {
		line := "#pragma D attributes " + strings.Join(a.Args, " ")
		// #pragma D attributes <attrs> provider <name> <class>
		if len(a.Args) >= 3 && a.Args[1] == "provider" {
			if p := byName[a.Args[2]]; p != nil {
				p.attrs = append(p.attrs, line)
				continue
			}
		}
		otherAttrs = append(otherAttrs, line)
	}
	macros := map[string]string{} // macro or semaphore name -> probe
	for _, p := range provs {
		if err := checkName(p.decl.Pos(), "provider", p.decl.Name); err != nil {
			return nil, nil, err
		}
		seen := map[string]bool{}
		for _, def := range p.decl.Probes {
			if err := checkName(def.ProbePos, "probe", def.Name); err != nil {
				return nil, nil, err
			}
			full := p.decl.Name + ":::" + usdt.DTraceName(def.Name)
			if seen[def.Name] {
				return nil, nil, &Error{Pos: def.ProbePos.String(), Msg: fmt.Sprintf("probe %s is defined twice", full)}
			}
			seen[def.Name] = true
			pr, err := newProbe(p.decl.Name, def)
			if err != nil {
				return nil, nil, err
			}
			for _, n := range []string{pr.macro, pr.macro + "_ENABLED", pr.sem} {
				if other, dup := macros[n]; dup {
					return nil, nil, &Error{Pos: def.ProbePos.String(), Msg: fmt.Sprintf("probes %s and %s both need the C name %s", other, full, n)}
				}
				macros[n] = full
			}
			p.probes = append(p.probes, pr)
		}
	}
	return provs, otherAttrs, nil
}

func checkName(pos interface{ String() string }, what, name string) error {
	if !isIdent(name) {
		return &Error{Pos: pos.String(), Msg: fmt.Sprintf("%s name %q cannot be used in C names", what, name)}
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// macroName is DTrace's: the provider and probe names upper-cased, each
// "__" in the probe name written "_": http, request__start is
// HTTP_REQUEST_START.
func macroName(prov, name string) string {
	return strings.ToUpper(prov) + "_" + strings.ToUpper(strings.ReplaceAll(name, "__", "_"))
}

func newProbe(prov string, def *ast.ProbeDef) (*probe, error) {
	full := prov + ":::" + usdt.DTraceName(def.Name)
	if len(def.Args) > MaxArgs {
		return nil, &Error{Pos: def.ProbePos.String(), Msg: fmt.Sprintf("probe %s has %d arguments; at most %d are supported", full, len(def.Args), MaxArgs)}
	}
	pr := &probe{
		def:   def,
		macro: macroName(prov, def.Name),
		sem:   prov + "_" + def.Name + "_semaphore",
		types: usdt.ProbeTypes{Provider: prov, Name: def.Name},
	}
	used := map[string]bool{}
	var nat []string
	for i, f := range def.Args {
		if isVoid(f) && len(def.Args) == 1 {
			break // probe p(void)
		}
		t := typeString(f.Type)
		pr.types.Native = append(pr.types.Native, usdt.TypedArg{Type: t, Name: f.Name})
		nat = append(nat, argString(t, f.Name))
		name := f.Name
		if !isIdent(name) || used[name] || strings.HasPrefix(name, "__") ||
			(len(name) > 1 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') {
			name = "arg" + strconv.Itoa(i)
		}
		for used[name] {
			name = "_" + name
		}
		used[name] = true
		pr.params = append(pr.params, name)
	}
	pr.summary = fmt.Sprintf("%s(%s)", full, strings.Join(nat, ", "))
	if def.XlateArgs != nil {
		pr.types.Translated = []usdt.TypedArg{}
		pr.types.Map = []int{}
		var xs []string
		for i, f := range def.XlateArgs {
			if isVoid(f) && len(def.XlateArgs) == 1 {
				break
			}
			t := typeString(f.Type)
			m := -1
			if f.Name != "" {
				for j, n := range pr.types.Native {
					if n.Name == f.Name {
						m = j
						break
					}
				}
				if m < 0 {
					return nil, &Error{Pos: f.NamePos.String(), Msg: fmt.Sprintf("probe %s: translated argument #%d (%s) names no native argument", full, i+1, f.Name)}
				}
			} else {
				if i >= len(pr.types.Native) {
					return nil, &Error{Pos: def.ProbePos.String(), Msg: fmt.Sprintf("probe %s: unnamed translated argument #%d has no native argument #%d", full, i+1, i+1)}
				}
				m = i
			}
			if i >= 255 {
				return nil, &Error{Pos: def.ProbePos.String(), Msg: fmt.Sprintf("probe %s: too many translated arguments", full)}
			}
			pr.types.Translated = append(pr.types.Translated, usdt.TypedArg{Type: t, Name: f.Name})
			pr.types.Map = append(pr.types.Map, m)
			xs = append(xs, argString(t, f.Name))
		}
		pr.summary += fmt.Sprintf(" : (%s)", strings.Join(xs, ", "))
	}
	for _, a := range append(append([]usdt.TypedArg{}, pr.types.Native...), pr.types.Translated...) {
		if strings.ContainsAny(a.Type+a.Name, "\x00\"\\\n") {
			return nil, &Error{Pos: def.ProbePos.String(), Msg: fmt.Sprintf("probe %s: unexpected character in argument %q", full, a.Type+" "+a.Name)}
		}
	}
	return pr, nil
}

func isVoid(f *ast.Field) bool {
	t := f.Type
	return f.Name == "" && t != nil && t.Tag == "" && t.Stars == 0 && len(t.Dims) == 0 &&
		len(t.Words) == 1 && t.Words[0] == "void"
}

func argString(t, name string) string {
	if name == "" {
		return t
	}
	if strings.HasSuffix(t, "*") {
		return t + name
	}
	return t + " " + name
}

// typeString writes a type as the definition spelled it, C style:
// "const char *", "struct foo *", "unsigned long long", "int [4]".
func typeString(t *ast.TypeName) string {
	if t == nil {
		return "int"
	}
	s := t.Spelling()
	if len(t.Dims) > 0 {
		s += " "
		for _, d := range t.Dims {
			switch d := d.(type) {
			case nil:
				s += "[]"
			case *ast.IntLit:
				s += "[" + strconv.FormatUint(d.Value, 10) + "]"
			default:
				s += "[?]"
			}
		}
	}
	return s
}

// cString quotes s as a C string literal (s holds no quotes, backslashes
// or newlines: newProbe refuses them).
func cString(s string) string { return `"` + s + `"` }

func writeHeader(w *bufio.Writer, provs []*provider, otherAttrs []string, guard, source string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("/*\n * Generated by sonde -h")
	if source != "" {
		p(" from %s", commentSafe(source))
	}
	p(". Do not edit.\n *\n")
	p(" * Each probe fires with PROVIDER_PROBE(args...) and has PROVIDER_PROBE_ENABLED(),\n")
	p(" * true while something traces it, to skip preparing the arguments otherwise.\n")
	p(" * The probes are SystemTap SDT notes (.note.stapsdt) with semaphores, seen by\n")
	p(" * sonde, bpftrace, perf and bcc; the argument types of the definition are in\n")
	p(" * .note.sonde. Define SONDE_DISABLE_PROBES to compile the probes out.\n")
	for _, a := range otherAttrs {
		p(" *\n * %s\n", commentSafe(a))
	}
	p(" */\n\n#ifndef %s\n#define %s\n\n", guard, guard)
	w.WriteString(common)
	for _, pv := range provs {
		writeProvider(w, pv)
	}
	p("#endif /* %s */\n", guard)
}

func commentSafe(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

func writeProvider(w *bufio.Writer, pv *provider) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	name := pv.decl.Name
	p("/*\n * Provider %s", name)
	if len(pv.probes) == 0 {
		p(" (no probes)")
	}
	p("\n")
	for _, a := range pv.attrs {
		p(" *   %s\n", commentSafe(a))
	}
	p(" */\n")
	if len(pv.probes) == 0 {
		p("\n")
		return
	}
	p("#if _SONDE_USDT_ENABLED\n\n")

	// Semaphores: one per probe in .probes, in a COMDAT group each, so
	// that every object including this header shares one.
	p("/* Semaphores: non-zero while a tracer has the probe enabled. */\n__asm__(\n")
	for _, pr := range pv.probes {
		s := pr.sem
		p("\t\"\\t.pushsection .probes,\\\"awG\\\",\\\"progbits\\\",%s,comdat\\n\"\n", s)
		p("\t\"\\t.weak %s\\n\"\n", s)
		p("\t\"\\t.hidden %s\\n\"\n", s)
		p("\t\"\\t.type %s, %%object\\n\"\n", s)
		p("\t\"\\t.size %s, 2\\n\"\n", s)
		p("\t\"\\t.balign 2\\n\"\n")
		p("\t\"%s:\\n\"\n", s)
		p("\t\"\\t.zero 2\\n\"\n")
		p("\t\"\\t.popsection\\n\"\n")
	}
	p(");\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
	for _, pr := range pv.probes {
		p("extern volatile unsigned short %s __attribute__((__visibility__(\"hidden\")));\n", pr.sem)
	}
	p("#ifdef __cplusplus\n}\n#endif\n\n")

	// Type records: one .note.sonde note per probe, in one COMDAT group
	// per provider.
	p("/* Argument types (.note.sonde, owner \"sonde\"; see sonde's internal/usdt/FORMAT.md). */\n__asm__(\n")
	p("\t\"\\t.pushsection %s,\\\"G\\\",\\\"note\\\",sonde.types.%s,comdat\\n\"\n", usdt.TypeNoteSection, name)
	for _, pr := range pv.probes {
		desc, err := usdt.EncodeTypeRecord(&pr.types)
		if err != nil {
			panic(err) // newProbe checked counts and characters
		}
		p("\t/* %s */\n", commentSafe(pr.summary))
		p("\t\"\\t.balign 4\\n\"\n")
		// the descriptor's size from labels, not counted here: a build
		// that edits the header's text (memcached's sed turns "char *"
		// into "const char *") keeps a valid note
		p("\t\"\\t.4byte %d, 996f-995f, %#x\\n\"\n", len(usdt.TypeNoteOwner)+1, usdt.TypeNoteType)
		p("\t\"\\t.asciz \\\"%s\\\"\\n\"\n", usdt.TypeNoteOwner)
		p("\t\"\\t.balign 4\\n\"\n")
		p("\t\"995:\\n\"\n")
		// Fixed part: version, counts, flags, map.
		head := 4 + len(pr.types.Map)
		var bs []string
		for _, b := range desc[:head] {
			bs = append(bs, strconv.Itoa(int(b)))
		}
		p("\t\"\\t.byte %s\\n\"\n", strings.Join(bs, ", "))
		// Strings.
		for _, s := range strings.Split(strings.TrimSuffix(string(desc[head:]), "\x00"), "\x00") {
			p("\t\"\\t.asciz \\\"%s\\\"\\n\"\n", s)
		}
		p("\t\"996:\\n\"\n")
	}
	p("\t\"\\t.balign 4\\n\"\n")
	p("\t\"\\t.popsection\\n\"\n);\n\n")

	for _, pr := range pv.probes {
		writeProbe(w, pv, pr)
	}

	p("#else /* !_SONDE_USDT_ENABLED */\n\n")
	for _, pr := range pv.probes {
		// The arguments are not evaluated, but they are used: no
		// "unused variable" warnings for values computed for a probe.
		if len(pr.params) == 0 {
			p("#define %s() do { } while (0)\n", pr.macro)
		} else {
			var uses []string
			for _, a := range pr.params {
				uses = append(uses, "(void)("+a+");")
			}
			p("#define %s(%s) \\\n\tdo { if (0) { %s } } while (0)\n", pr.macro, strings.Join(pr.params, ", "), strings.Join(uses, " "))
		}
		p("#define %s_ENABLED() (0)\n", pr.macro)
	}
	p("\n#endif /* _SONDE_USDT_ENABLED */\n\n")
}

func writeProbe(w *bufio.Writer, pv *provider, pr *probe) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("/* %s */\n", commentSafe(pr.summary))
	params := strings.Join(pr.params, ", ")
	p("#define %s(%s) \\\n", pr.macro, params)
	args := []string{cString(pv.decl.Name), cString(pr.def.Name), cString(pr.sem)}
	args = append(args, pr.params...)
	p("\t_SONDE_PROBE%d(%s)\n", len(pr.params), strings.Join(args, ", "))
	p("#define %s_ENABLED() \\\n\t(__builtin_expect(%s != 0, 0) != 0)\n\n", pr.macro, pr.sem)
}

// common is the machinery every generated header shares, guarded so that
// several provider headers can be included together.
var common = func() string {
	var b strings.Builder
	b.WriteString(commonHead)
	for n := 0; n <= MaxArgs; n++ {
		fmt.Fprintf(&b, "#define _SONDE_PROBE%d(prov, name, sem", n)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, ", a%d", i)
		}
		b.WriteString(") \\\n\tdo { __asm__ __volatile__ (_SONDE_NOTE(prov, name, sem, ")
		if n == 0 {
			b.WriteString(`""`)
		} else {
			fmt.Fprintf(&b, "_SONDE_FMT%d", n)
		}
		b.WriteString(")")
		// The "memory" clobber makes a probe a compiler barrier, as the
		// function call it is in DTrace: what arguments point to is
		// written before it fires (a struct filled in just before).
		b.WriteString(" \\\n\t\t:: ")
		var ops []string
		for i := 1; i <= n; i++ {
			ops = append(ops, fmt.Sprintf("_SONDE_OP(%d, a%d)", i, i))
		}
		b.WriteString(strings.Join(ops, ", "))
		b.WriteString(" : \"memory\"); } while (0)\n")
	}
	b.WriteString("\n#endif /* _SONDE_USDT_V1_MACROS */\n#endif /* _SONDE_USDT_ENABLED */\n\n")
	return b.String()
}()

const commonHead = `#ifndef _SONDE_USDT_ENABLED
# if !defined(SONDE_DISABLE_PROBES) && defined(__ELF__) && defined(__GNUC__) && \
     (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#  define _SONDE_USDT_ENABLED 1
# else
#  define _SONDE_USDT_ENABLED 0
# endif
#endif

#if _SONDE_USDT_ENABLED
#ifndef _SONDE_USDT_V1_MACROS
#define _SONDE_USDT_V1_MACROS 1

/*
 * The probe site: the note's address is a 1-byte nop, where a tracer places
 * its uprobe (the kernel emulates it; nothing is written below %rsp, where a
 * leaf function keeps its locals). Not a 5-byte nop: Linux 6.18 rewrites a
 * uprobe on one into a call to a trampoline, which pushes onto the red zone.
 * On x86-64 a 10-byte nop, "nopw %cs:0(%rax,%rax,1)" as bytes, follows, as
 * in libbpf's usdt.h: kernels that make a call of a uprobe there step over
 * the red zone first, and a tracer that knows so may probe it instead.
 */
#if defined(__x86_64__)
# define _SONDE_NOP "nop\n\t.byte 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00"
#else
# define _SONDE_NOP "nop"
#endif

#if defined(__LP64__) || defined(_LP64)
# define _SONDE_ADDR ".8byte"
#else
# define _SONDE_ADDR ".4byte"
#endif

/*
 * "?" puts the note in the section group of the code around it, so that
 * it goes away with a discarded COMDAT copy of an inline function.
 */
#if defined(__clang__) && __clang_major__ < 12
# define _SONDE_AUTOGROUP "\"\""
#else
# define _SONDE_AUTOGROUP "\"?\""
#endif

/*
 * Argument size and signedness, as sys/sdt.h has them: "N@operand" with N
 * the size in bytes, negative when signed. Arrays and functions decay to
 * pointers (unsigned, pointer-sized). The size operand is printed with
 * %n, which negates it: a signed argument passes +size.
 */
#ifdef __cplusplus
extern "C++" {
template <typename _T> inline _T __sonde_val(_T __x) { return __x; }
template <typename _T> struct __sonde_sign { static const bool __v = (_T)-1 < (_T)1; };
template <typename _T> struct __sonde_sign<_T *> { static const bool __v = false; };
}
# define _SONDE_V(x) (__sonde_val(x))
# define _SONDE_SIGNED(x) (__sonde_sign<__typeof__(__sonde_val(x))>::__v)
# define _SONDE_SIZE(x) sizeof(__sonde_val(x))
#else
# define _SONDE_V(x) ((void)0, (x))
# define _SONDE_ISPTR(x) (__builtin_classify_type(x) == 5 || __builtin_classify_type(x) == 14)
# define _SONDE_SIGNED(x) \
	(!_SONDE_ISPTR(x) && (__typeof__(_SONDE_V(x)))-1 < (__typeof__(_SONDE_V(x)))1)
# define _SONDE_SIZE(x) (_SONDE_ISPTR(x) ? sizeof(void *) : sizeof(_SONDE_V(x)))
#endif
#define _SONDE_OP(i, x) \
	[_sonde_s##i] "n" ((_SONDE_SIGNED(x) ? 1 : -1) * (int)_SONDE_SIZE(x)), \
	[_sonde_a##i] "nor" (_SONDE_V(x))

#define _SONDE_FMT1 "%n[_sonde_s1]@%[_sonde_a1]"
#define _SONDE_FMT2 _SONDE_FMT1 " %n[_sonde_s2]@%[_sonde_a2]"
#define _SONDE_FMT3 _SONDE_FMT2 " %n[_sonde_s3]@%[_sonde_a3]"
#define _SONDE_FMT4 _SONDE_FMT3 " %n[_sonde_s4]@%[_sonde_a4]"
#define _SONDE_FMT5 _SONDE_FMT4 " %n[_sonde_s5]@%[_sonde_a5]"
#define _SONDE_FMT6 _SONDE_FMT5 " %n[_sonde_s6]@%[_sonde_a6]"
#define _SONDE_FMT7 _SONDE_FMT6 " %n[_sonde_s7]@%[_sonde_a7]"
#define _SONDE_FMT8 _SONDE_FMT7 " %n[_sonde_s8]@%[_sonde_a8]"
#define _SONDE_FMT9 _SONDE_FMT8 " %n[_sonde_s9]@%[_sonde_a9]"
#define _SONDE_FMT10 _SONDE_FMT9 " %n[_sonde_s10]@%[_sonde_a10]"
#define _SONDE_FMT11 _SONDE_FMT10 " %n[_sonde_s11]@%[_sonde_a11]"
#define _SONDE_FMT12 _SONDE_FMT11 " %n[_sonde_s12]@%[_sonde_a12]"

/*
 * The probe: the nop, its SystemTap SDT note (owner "stapsdt", type 3:
 * site, .stapsdt.base and semaphore addresses, then provider, name and
 * arguments), and the .stapsdt.base section that lets a reader adjust for
 * prelinking (the same COMDAT group as sys/sdt.h's, so that both can be
 * in one program).
 */
#define _SONDE_NOTE(prov, name, sem, args) \
	"990:\t" _SONDE_NOP "\n" \
	"\t.pushsection .note.stapsdt," _SONDE_AUTOGROUP ",\"note\"\n" \
	"\t.balign 4\n" \
	"\t.4byte 992f-991f, 994f-993f, 3\n" \
	"991:\t.asciz \"stapsdt\"\n" \
	"992:\t.balign 4\n" \
	"993:\t" _SONDE_ADDR " 990b\n" \
	"\t" _SONDE_ADDR " _.stapsdt.base\n" \
	"\t" _SONDE_ADDR " " sem "\n" \
	"\t.asciz \"" prov "\"\n" \
	"\t.asciz \"" name "\"\n" \
	"\t.asciz \"" args "\"\n" \
	"994:\t.balign 4\n" \
	"\t.popsection\n" \
	".ifndef _.stapsdt.base\n" \
	"\t.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
	"\t.weak _.stapsdt.base\n" \
	"\t.hidden _.stapsdt.base\n" \
	"_.stapsdt.base:\n" \
	"\t.space 1\n" \
	"\t.size _.stapsdt.base, 1\n" \
	"\t.popsection\n" \
	".endif\n"

`
