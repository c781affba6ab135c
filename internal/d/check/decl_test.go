package check_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/parser"
)

// layoutDecls are declarations both C and D accept; TestLayoutGCC checks
// that the checker lays them out as gcc does.
const layoutDecls = `
struct a { char c; int i; short s; long l; char buf[5]; };
struct b { uint8_t x; struct a inner; uint16_t y; };
union u { char c; int i; uint64_t l; char b[13]; };
struct c { char c; union u un; int16_t arr[3]; void *p; };
struct bf { unsigned lo : 3, mid : 7; int neg : 5; char c; unsigned long wide : 40; unsigned : 0; unsigned char last : 2; };
struct bf2 { char c; int x : 4; short y : 12; char z; };
typedef struct { uint32_t a; uint64_t b; uint8_t c; } e_t;
struct f { e_t e[2]; char z; };
struct g { char c; int32_t *ptrs[2]; int16_t h; struct { char x; int y; } in; };
union ubf { unsigned x : 3; unsigned long y : 40; char c; };
struct h { char c[3]; int8_t d; struct h *next; uint16_t m[2][3]; };
`

// layoutMembers are the members TestLayoutGCC compares; a name followed
// by ":" is a bit-field.
var layoutMembers = map[string][]string{
	"struct a":   {"c", "i", "s", "l", "buf"},
	"struct b":   {"x", "inner", "y"},
	"union u":    {"c", "i", "l", "b"},
	"struct c":   {"c", "un", "arr", "p"},
	"struct bf":  {"lo:", "mid:", "neg:", "c", "wide:", "last:"},
	"struct bf2": {"c", "x:", "y:", "z"},
	"e_t":        {"a", "b", "c"},
	"struct f":   {"e", "z"},
	"struct g":   {"c", "ptrs", "h", "in"},
	"union ubf":  {"x:", "y:", "c"},
	"struct h":   {"c", "d", "next", "m"},
}

func TestLayoutGCC(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found")
	}
	var types []string
	for ty := range layoutMembers {
		types = append(types, ty)
	}
	// The C program prints, per type, its size, then per member its
	// offset, or for a bit-field the bit where it starts and its width.
	var c strings.Builder
	c.WriteString("#include <stdio.h>\n#include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n" + layoutDecls +
		"static int low(unsigned char *p, int n) { for (int i = 0; i < 8*n; i++) if (p[i/8] >> (i%8) & 1) return i; return -1; }\n" +
		"static int cnt(unsigned char *p, int n) { int k = 0; for (int i = 0; i < 8*n; i++) k += p[i/8] >> (i%8) & 1; return k; }\n" +
		"int main(void) {\n")
	for i, ty := range types {
		fmt.Fprintf(&c, "\t{ %s v%d; printf(\"%%zu\\n\", sizeof(v%d));\n", ty, i, i)
		for _, m := range layoutMembers[ty] {
			if name, ok := strings.CutSuffix(m, ":"); ok {
				fmt.Fprintf(&c, "\tmemset(&v%d, 0, sizeof v%d); v%d.%s = -1; printf(\"%%d %%d\\n\", low((unsigned char *)&v%d, sizeof v%d), cnt((unsigned char *)&v%d, sizeof v%d));\n",
					i, i, i, name, i, i, i, i)
			} else {
				fmt.Fprintf(&c, "\tprintf(\"%%zu\\n\", offsetof(%s, %s));\n", ty, m)
			}
		}
		c.WriteString("\t}\n")
	}
	c.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "layout.c"), filepath.Join(dir, "layout")
	if err := os.WriteFile(src, []byte(c.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-w", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("running the C program: %v", err)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")

	// The D program: for each type sizeof(T), then ((T *)0)->m.
	var d strings.Builder
	d.WriteString(layoutDecls + "BEGIN {\n")
	for _, ty := range types {
		fmt.Fprintf(&d, "\tsizeof(%s);\n", ty)
		for _, m := range layoutMembers[ty] {
			fmt.Fprintf(&d, "\t((%s *)0)->%s;\n", ty, strings.TrimSuffix(m, ":"))
		}
	}
	d.WriteString("}\n")
	info, errs := checkSource(t, d.String(), check.Config{})
	if len(errs) > 0 {
		t.Fatalf("check: %s", errText(errs))
	}
	var got []string
	for _, s := range info.Clauses[0].Node.Body.Stmts {
		switch v := s.(*ast.ExprStmt).X.(type) {
		case *ast.SizeofExpr:
			got = append(got, strconv.FormatInt(info.Consts[v].Int, 10))
		case *ast.SelectorExpr:
			f := info.Fields[v]
			if f == nil {
				t.Fatalf("no field for ->%s", v.Sel)
			}
			if f.Bits > 0 {
				got = append(got, fmt.Sprintf("%d %d", 8*f.Offset+f.BitOff, f.Bits))
			} else {
				got = append(got, strconv.Itoa(f.Offset))
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d values, gcc %d", len(got), len(want))
	}
	k := 0
	for _, ty := range types {
		if got[k] != want[k] {
			t.Errorf("sizeof(%s) = %s, gcc %s", ty, got[k], want[k])
		}
		k++
		for _, m := range layoutMembers[ty] {
			if got[k] != want[k] {
				t.Errorf("%s member %s at %s, gcc %s", ty, m, got[k], want[k])
			}
			k++
		}
	}
}

// xlDecls declare what the translated probe of checktest needs and
// translators over integers.
const xlDecls = `
struct req { uint64_t uri; uint32_t status; char method[8]; };
typedef struct reqinfo { string ri_uri; uint32_t ri_status; string ri_method; int64_t ri_id; } reqinfo_t;
translator reqinfo_t < struct req *r > {
	ri_uri = copyinstr(*(uint64_t *)copyin((uintptr_t)&r->uri, 8));
	ri_status = *(uint32_t *)copyin((uintptr_t)&r->status, 4);
	ri_method = stringof(((userland struct req *)r)->method);
};
typedef struct num { int64_t twice; string s; uint8_t low; } num_t;
translator num_t < int64_t n > { twice = n * 2; s = lltostr(n); low = n; };
`

func TestDeclTypes(t *testing.T) {
	for _, tt := range []struct {
		decls, probe, expr string
		want               string // type name
		size               int
	}{
		{xlDecls, "BEGIN", "xlate<num_t>(3).twice", "int64_t", 8},
		{xlDecls, "BEGIN", "xlate<num_t *>(3)->s", "string", 256},
		{xlDecls, "BEGIN", "xlate<num_t>((char)3).low", "uint8_t", 1},
		{xlDecls, "BEGIN", "xlate<num_t *>(3)", "struct num *", 8},
		{xlDecls, "BEGIN", "sizeof(num_t)", "size_t", 8},
		{xlDecls, "BEGIN", "((struct req *)arg0)->method", "string", 9},
		{xlDecls, "BEGIN", "((struct req *)arg0)->method[2]", "char", 1},
		{xlDecls, "BEGIN", "&((struct req *)arg0)->status", "uint_t *", 8},
		{xlDecls, "BEGIN", "offsetof(struct req, method)", "size_t", 8},
		{xlDecls, "xlt:::req", "args[0]", "struct reqinfo *", 8},
		{xlDecls, "xlt:::req", "args[0]->ri_uri", "string", 256},
		{xlDecls, "xlt:::req", "args[0]->ri_status", "uint_t", 4},
		{xlDecls, "xlt:::req", "args[1]", "string", 256},
		{xlDecls, "xlt:::req", "args[2]", "int64_t", 8},
		{"enum e { A, B = 7, C };", "BEGIN", "C", "enum e", 4},
		{"typedef uint16_t port_t;", "BEGIN", "(port_t)70000", "port_t", 2},
		{"typedef struct s { int x; } s_t; typedef s_t *sp_t;", "BEGIN", "((sp_t)arg0)->x", "int", 4},
		{xlDecls + "inline num_t *N = xlate<num_t *>(arg0);", "BEGIN", "N->s", "string", 256},
	} {
		info, e := exprOf(t, tt.decls, tt.probe, tt.expr)
		ty := info.Types[e]
		if ty == nil {
			t.Errorf("%s: no type", tt.expr)
			continue
		}
		if ty.String() != tt.want || ty.Size != tt.size {
			t.Errorf("%s: type %s (%d bytes), want %s (%d)", tt.expr, ty, ty.Size, tt.want, tt.size)
		}
	}
}

func TestDeclConsts(t *testing.T) {
	for _, tt := range []struct {
		decls, expr string
		want        int64
	}{
		{"enum e { A, B = 7, C, D = B * 2, E = -1, F };", "A + B + C + D + E + F", 0 + 7 + 8 + 14 - 1 + 0},
		{"struct s { char c; uint64_t v; };", "offsetof(struct s, v)", 8},
		{"struct s { char c; uint64_t v; }; typedef struct s s_t;", "sizeof(s_t)", 16},
		{"union u { char c[9]; int i; };", "sizeof(union u)", 12},
		{"inline int N = 4; struct s { char c[N * 2]; };", "sizeof(struct s)", 8},
	} {
		info, e := exprOf(t, tt.decls, "BEGIN", tt.expr)
		k, ok := info.Consts[e]
		if !ok || k.Int != tt.want {
			t.Errorf("%s: %v, want %d", tt.expr, k.Int, tt.want)
		}
	}
}

// TestXlateLookup checks which translator xlate<> chooses: an exact
// input type first, then typedefs resolved, then a compatible one.
func TestXlateLookup(t *testing.T) {
	decls := `typedef struct o { int which; } o_t;
typedef int myint_t;
translator o_t < int64_t x > { which = 1; };
translator o_t < myint_t x > { which = 2; };
translator o_t < uint16_t x > { which = 3; };
struct p { int v; };
translator o_t < struct p *x > { which = 4; };
translator o_t < void *x > { which = 5; };`
	for _, tt := range []struct {
		expr string
		want int64
	}{
		{"xlate<o_t>(1l).which", 1},
		{"xlate<o_t>((myint_t)1).which", 2},
		{"xlate<o_t>(1).which", 2},           // int is myint_t with typedefs resolved
		{"xlate<o_t>((uint16_t)1).which", 3}, // exact
		{"xlate<o_t>((char)1).which", 1},     // compatible: the first integer one
		{"xlate<o_t>((struct p *)arg0).which", 4},
		{"xlate<o_t>((char *)arg0).which", 5},
	} {
		info, e := exprOf(t, decls, "BEGIN", tt.expr)
		xm := info.XMembers[e.(*ast.SelectorExpr)]
		if xm == nil {
			t.Errorf("%s: not a translated member", tt.expr)
			continue
		}
		if k := info.Consts[xm.Value]; k.Int != tt.want {
			t.Errorf("%s: translator %d, want %d", tt.expr, k.Int, tt.want)
		}
	}
}

// declErrors must fail with exactly these errors ("line:col TAG message",
// matched as a prefix).
var declErrors = []struct {
	src  string
	want []string
}{
	// Types.
	{"struct s { int x; };\nstruct s { int y; };", []string{"2:1 D_DECL_TYPERED type redeclared: struct s"}},
	{"union u { int x; };\nunion u { int y; };", []string{"2:1 D_DECL_TYPERED type redeclared: union u"}},
	{"enum e { A };\nenum e { B };", []string{"2:1 D_DECL_TYPERED type redeclared: enum e"}},
	{"typedef int t_t;\ntypedef long t_t;", []string{"2:1 D_DECL_IDRED typedef redeclared: t_t"}},
	{"typedef int uint64_t;", []string{"1:1 D_DECL_IDRED typedef redeclared: uint64_t"}},
	{"struct s { int x; char x; };", []string{"1:24 D_DECL_IDRED member redeclared: x"}},
	{"struct s { void v; };", []string{"1:17 D_DECL_VOIDOBJ cannot have void member: v"}},
	{"struct t; struct s { struct t m; };", []string{"1:31 D_DECL_INCOMPLETE incomplete struct/union/enum struct t: m"}},
	{"struct s { char c[arg0]; };", []string{"1:19 D_DECL_ARRSUB"}},
	{"struct s { char c[-1]; };", []string{"1:19 D_DECL_ARRSUB"}},
	{"struct s { int x : 40; };", []string{"1:16 D_DECL_BFSIZE bit-field too big for type: x"}},
	{"struct s { char *p : 3; };", []string{"1:18 D_DECL_BFTYPE invalid type for bit-field: p"}},
	{"struct s { int x : arg0; };", []string{"1:20 D_DECL_BFCONST"}},
	{"enum e { A = arg0 };", []string{"1:14 D_DECL_ENCONST enumerator 'A' must be assigned to an integral constant expression"}},
	{"enum e { A = 0x100000000 };", []string{"1:14 D_DECL_ENOFLOW"}},
	{"enum e { pid };", []string{"1:1 D_DECL_IDRED identifier redeclared: pid"}},
	{"inline int A = 1;\nenum e { A };", []string{"2:1 D_DECL_IDRED identifier redeclared: A"}},
	// Members.
	{"struct s { int x; };\nBEGIN { trace(((struct s *)arg0)->y); }", []string{"2:35 D_TYPE_MEMBER y is not a member of struct s"}},
	{"struct t;\nBEGIN { trace(((struct t *)arg0)->y); }", []string{"2:33 D_OP_INCOMPLETE operator -> cannot be applied to a forward declaration: no struct t definition is available"}},
	{"struct s { int x; };\nBEGIN { trace(offsetof(struct s, y)); }", []string{"2:15 D_UNKNOWN failed to determine offset of y"}},
	{"struct s { int x : 3; };\nBEGIN { trace(offsetof(struct s, x)); }", []string{"2:15 D_OFFSETOF_BITFIELD"}},
	{"struct s { int x : 3; };\nBEGIN { trace(&((struct s *)arg0)->x); }", []string{"2:15 D_ADDROF_BITFIELD"}},
	{"BEGIN { trace(&arg0); }", []string{"1:15 D_ADDROF_VAR"}},
	{"BEGIN { trace(&1); }", []string{"1:15 D_ADDROF_LVAL"}},
	// Translators.
	{"translator int < int x > { y = 1; };", []string{"1:1 D_XLATE_SOU translator output type must be a struct or union"}},
	{"struct o;\ntranslator struct o < int x > { y = 1; };", []string{"2:1 D_XLATE_SOU incomplete struct/union/enum struct o"}},
	{"struct o { int a; };\ntranslator struct o < int x > { a = x; };\ntranslator struct o < int y > { a = y; };",
		[]string{"3:1 D_XLATE_REDECL translator from int to struct o has already been declared"}},
	{"struct o { int a; };\ntranslator struct o < int x > { b = x; };", []string{"2:33 D_XLATE_MEMB translator member b is not a member of struct o"}},
	{"struct o { int a; };\ntranslator struct o < int x > { a = x; a = 2; };", []string{"2:40 D_XLATE_MEMB translator member a is defined more than once"}},
	{"struct o { int a; };\ntranslator struct o < int x > { a = \"str\"; };", []string{`2:33 D_XLATE_INCOMPAT translator member a definition uses incompatible types: "int" = "string"`}},
	{"struct o { string a; };\ntranslator struct o < int x > { a = x; };", []string{`2:33 D_XLATE_INCOMPAT translator member a definition uses incompatible types: "string" = "int"`}},
	{"struct o { int a; };\ntranslator struct o < int x > { a = y; };", []string{"2:37 D_IDENT_UNDEF failed to resolve y"}},
	{"struct o { int a; };\nBEGIN { trace(xlate<struct o>(1).a); }", []string{`2:15 D_XLATE_NONE cannot translate from "int" to "struct o"`}},
	{"struct o { int a; };\ntranslator struct o < int x > { a = x; };\nBEGIN { trace(xlate<struct o>(\"s\").a); }", []string{`3:15 D_XLATE_NONE cannot translate from "string" to "struct o"`}},
	{"struct o { int a; int b; };\ntranslator struct o < int x > { a = x; };\nBEGIN { trace(xlate<struct o>(1).b); }", []string{"3:34 D_XLATE_NOCONV translator does not define conversion for member: b"}},
	{"struct o { int a; };\ntranslator struct o < int x > { a = x; };\nBEGIN { trace(xlate<struct o>(1)->a); }", []string{"3:33 D_OP_PTR"}},
	{"struct o { int a; };\ntranslator struct o < int x > { a = x; };\nBEGIN { trace(xlate<struct o *>(1).a); }", []string{"3:35 D_OP_SOU"}},
	// Translated probe arguments.
	{"xlt:::req { trace(args[0]->ri_uri); }", []string{"1:19 D_ARGS_XLATOR translator for args[0] from struct req * to reqinfo_t * is not defined (load its library with -L)"}},
	{xlDecls + "xlt:::req { trace(args[3]); }", []string{"11:19 D_ARGS_XLATOR translator for args[3] from struct req * to conn_t * is not defined"}},
	{xlDecls + "xlt:::req { trace(args[0]->ri_id); }", []string{"11:28 D_XLATE_NOCONV translator does not define conversion for member: ri_id"}},
	// Pragmas.
	{"#pragma D depends_on provider nosuch\nBEGIN { }", []string{"1:1 D_PRAGMA_DEPEND program requires provider nosuch"}},
	{"#pragma D depends_on thing x\nBEGIN { }", []string{"1:1 D_PRAGMA_INVAL invalid class thing specified by #pragma depends_on"}},
}

func TestDeclErrors(t *testing.T) {
	for _, tt := range declErrors {
		_, errs := checkSource(t, tt.src, check.Config{})
		if len(errs) != len(tt.want) {
			t.Errorf("%q: got %d errors, want %d:\n%s", tt.src, len(errs), len(tt.want), errText(errs))
			continue
		}
		for i, e := range errs {
			if got := errString(e); !strings.HasPrefix(got, tt.want[i]) {
				t.Errorf("%q:\ngot  %s\nwant %s", tt.src, got, tt.want[i])
			}
		}
	}
}

// declValid are programs that use declarations and translators.
var declValid = []string{
	xlDecls + "xlt:::req { printf(\"%s %d %s %s %d\\n\", args[0]->ri_uri, args[0]->ri_status, args[1], args[0]->ri_method, args[2]); }",
	xlDecls + "xlt:::req { this->r = args[0]; trace(this->r->ri_uri); }",
	xlDecls + "BEGIN { this->n = xlate<num_t *>(5); printf(\"%d %s\\n\", this->n->twice, this->n->s); }",
	xlDecls + "BEGIN { trace((*xlate<num_t *>(5)).twice); }",
	"#pragma D depends_on provider syscall\nBEGIN { }",
	"#pragma D depends_on library net.d\n#pragma D binding \"1.6.1\" translator\nBEGIN { }",
	"struct s { int a[4]; struct s *next; }; BEGIN { p = (struct s *)arg0; trace(p->a[2] + p->next->a[1]); }",
	"struct s { char c; }; BEGIN { p = (struct s *)arg0; trace((*p).c); trace(p[1].c); }",
	"typedef struct { string name; } named_t; translator named_t < uintptr_t p > { name = copyinstr(p); }; BEGIN { trace(xlate<named_t>(arg0).name); }",
	layoutDecls + "BEGIN { trace(((struct bf *)arg0)->neg); trace(((struct h *)arg0)->m[1][2]); }",
}

func TestDeclValid(t *testing.T) {
	for _, src := range declValid {
		if _, errs := checkSource(t, src, check.Config{}); len(errs) > 0 {
			t.Errorf("%q: unexpected errors:\n%s", src, errText(errs))
		}
	}
}

// FuzzDecl is FuzzCheck seeded with declarations and translators.
func FuzzDecl(f *testing.F) {
	for _, src := range declValid {
		f.Add(src)
	}
	for _, tt := range declErrors {
		f.Add(tt.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, _ := parser.ParseFile("f.d", []byte(src), &parser.Options{Macros: testMacros})
		cfg := check.Config{Resolver: fakeResolver, Macros: testMacros}
		_, errs := check.Check(progsOf(prog), cfg)
		_, again := check.Check(progsOf(prog), cfg)
		if errText(errs) != errText(again) {
			t.Fatalf("checking twice differs:\n%s\n---\n%s", errText(errs), errText(again))
		}
	})
}
