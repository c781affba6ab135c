package check_test

import (
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/parser"
)

// typeRuleErrors are programs that a declaration or type rule must
// refuse: a wrong type or an impossible size is never accepted silently
// nor taken as 0. Each must fail with exactly these errors ("line:col
// TAG message", matched as a prefix).
var typeRuleErrors = []struct {
	src  string
	want []string
}{
	// Inline values against the inline's declared type (dt_cook_inline),
	// checked even when no clause uses the inline.
	{`inline int i = "i am a string";`, []string{`1:12 D_OP_INCOMPAT inline i definition uses incompatible types: "int" = "string"`}},
	{"inline int i = \"s\";\nBEGIN { trace(i); }", []string{`1:12 D_OP_INCOMPAT inline i definition uses incompatible types: "int" = "string"`}},
	{`inline string s = 1;`, []string{`1:15 D_OP_INCOMPAT inline s definition uses incompatible types: "string" = "int"`}},
	{`inline int64_t *p = 1;`, []string{`1:17 D_OP_INCOMPAT inline p definition uses incompatible types: "int64_t *" = "int"`}},
	{`inline int *p = (char *)arg0;`, []string{`1:13 D_OP_INCOMPAT inline p definition uses incompatible types: "int *" = "char *"`}},
	{`inline int x = (char *)arg0;`, []string{`1:12 D_OP_INCOMPAT inline x definition uses incompatible types: "int" = "char *"`}},
	{`inline int x = nosuch;`, []string{`1:16 D_IDENT_UNDEF failed to resolve nosuch: unknown variable name`}},
	{`inline nosuch_t x = 1;`, []string{`1:8 D_UNKNOWN failed to resolve type nosuch_t`}},

	// Array dimensions (dt_decl_array): a positive integral constant, at
	// most UINT_MAX, of an array that fits; of a global variable, too.
	{`int a[-1];`, []string{`1:7 D_DECL_ARRSUB positive integral constant expression or tuple signature expected as array declaration subscript`}},
	{`int a[0];`, []string{`1:7 D_DECL_ARRSUB`}},
	{`int a[arg0];`, []string{`1:7 D_DECL_ARRSUB`}},
	{`int a["x"];`, []string{`1:7 D_DECL_ARRSUB`}},
	{`int a[1 - 1];`, []string{`1:7 D_DECL_ARRSUB`}},
	{`char a[4294967296];`, []string{`1:8 D_DECL_ARRBIG array dimension too big`}},
	{`char a[0xffffffffffffffff];`, []string{`1:8 D_DECL_ARRBIG array dimension too big`}},
	{`long a[4294967295];`, []string{`1:8 D_DECL_ARRBIG array dimension too big`}},
	{`long a[1000000];`, []string{`1:6 D_DECL_ARRBIG array dimension too big: a takes 8000000 bytes`}},
	{`typedef int a_t[-1];`, []string{`1:17 D_DECL_ARRSUB`}},
	{`struct s { char c[4294967296]; };`, []string{`1:19 D_DECL_ARRBIG array dimension too big`}},
	{`struct t; struct s { struct t m[2]; };`, []string{`1:33 D_DECL_INCOMPLETE incomplete struct/union/enum struct t: array element`}},
	{`void a[3];`, []string{`1:8 D_DECL_VOIDOBJ cannot declare array of void`}},
	{`BEGIN { trace(sizeof(char [0])); }`, []string{`1:28 D_DECL_ARRSUB`}},

	// Array variables: global, of integers or pointers; a constant index
	// is checked against the dimension (D_ARR_BOUNDS), the array itself
	// is not a value.
	{"int a[10];\nBEGIN { a[10] = 5; }", []string{`2:11 D_ARR_BOUNDS index outside array bounds: 10, max is 10`}},
	{"int a[10];\nBEGIN { trace(a[-1]); }", []string{`2:17 D_ARR_BOUNDS index outside array bounds: -1, max is 10`}},
	{"int a[2][3];\nBEGIN { trace(a[1][3]); }", []string{`2:20 D_ARR_BOUNDS index outside array bounds: 3, max is 3`}},
	{"int a[2][3];\nBEGIN { a[1] = 3; }", []string{`2:14 D_OP_ARRFUN operator = may not be applied to an array`}},
	{"int a[10];\nBEGIN { a[1] = \"s\"; }", []string{`2:14 D_OP_INCOMPAT operands have incompatible types: "int" = "string"`}},
	{"int a[10];\nBEGIN { a[\"x\"] = 1; }", []string{`2:11 D_OP_INT operator [ ] requires an index of integral type, not "string"`}},
	{"int a[10];\nBEGIN { a[1, 2] = 1; }", []string{`2:10 D_ARR_BADREF cannot access variable a as an associative array`}},
	{"int a[10];\nBEGIN { trace(a); }", []string{`2:15 D_OP_ARRFUN a is an array`}},
	{"int a[10];\nBEGIN { a = 1; }", []string{`2:11 D_OP_INCOMPAT operands have incompatible types: "int [10]" = "int"`}},
	{`self int a[3];`, []string{`1:10 D_DECL_BADCLASS self->a: sonde keeps arrays in global variables only`}},
	{`BEGIN { this int a[2]; }`, []string{`1:18 D_DECL_BADCLASS this->a: sonde keeps arrays in global variables only`}},
	{`string s[3];`, []string{`1:8 D_DECL_DYNOBJ cannot declare array of string`}},
	{"struct s { int x; };\nstruct s a[3];", []string{`2:10 D_DECL_DYNOBJ cannot declare array of struct s`}},
	{`BEGIN { trace(((int *)arg0)["x"]); }`, []string{`1:29 D_OP_INT operator [ ] requires an index of integral type`}},
	{"struct s { int a[4]; };\nBEGIN { trace(((struct s *)arg0)->a[4]); }", []string{`2:37 D_ARR_BOUNDS index outside array bounds: 4, max is 4`}},
	// Memory elsewhere is not assigned through a subscript.
	{`BEGIN { ((int *)arg0)[1]++; }`, []string{`1:9 D_OP_LVAL operator requires modifiable lvalue as an operand`}},
	// (through a kernel pointer a store is allowed, and faults when the
	// code runs unless the memory is scratch memory: svar.go)
	{`BEGIN { p = (userland int *)arg0; p[1]++; }`, []string{`1:35 D_OP_LVAL`}},
	{"int *q[2];\nBEGIN { ((userland int *)q[1])[0]++; }", []string{`2:9 D_OP_LVAL`}},

	// sizeof of what has no size (dt_node_op1), of a bit-field.
	{`BEGIN { trace(sizeof(struct nosuch)); }`, []string{`1:15 D_SIZEOF_TYPE cannot apply sizeof to an operand of unknown size`}},
	{"struct s;\nBEGIN { trace(sizeof(struct s)); }", []string{`2:15 D_SIZEOF_TYPE`}},
	{`BEGIN { trace(sizeof(union u)); }`, []string{`1:15 D_SIZEOF_TYPE`}},
	{`BEGIN { trace(sizeof(void)); }`, []string{`1:15 D_SIZEOF_TYPE`}},
	{"struct s { int x : 3; };\nBEGIN { trace(sizeof(((struct s *)arg0)->x)); }", []string{`2:15 D_SIZEOF_BITFIELD cannot apply sizeof to a bit-field`}},

	// Names that are no type (dt_decl_type): in casts, typedefs, members,
	// variables, sizeof.
	{`BEGIN { trace((nosuch_t)1); }`, []string{`1:16 D_UNKNOWN failed to resolve type nosuch_t: unknown type name`}},
	{`typedef nosuch_t foo_t;`, []string{`1:1 D_UNKNOWN failed to resolve type nosuch_t`}},
	{`struct s { nosuch_t x; };`, []string{`1:12 D_UNKNOWN failed to resolve type nosuch_t`}},
	{`struct s { nosuch_t x : 3; };`, []string{`1:12 D_UNKNOWN failed to resolve type nosuch_t`}},
	{`BEGIN { this nosuch_t x; }`, []string{`1:9 D_UNKNOWN failed to resolve type nosuch_t`}},
	{`typedef int t_t; BEGIN { trace(sizeof(t_t *)); trace((nosuch_t *)arg0); }`, []string{`1:55 D_UNKNOWN failed to resolve type nosuch_t`}},

	// Casts to what is not a scalar (dt_cook_op2).
	{`BEGIN { trace((struct nosuch)1); }`, []string{`1:15 D_CAST_INVAL invalid cast expression: "int" to "struct nosuch"`}},
	{"struct s { int x; };\nBEGIN { trace((struct s)arg0); }", []string{`2:15 D_CAST_INVAL invalid cast expression: "int64_t" to "struct s"`}},

	// Enumerators past INT_MAX, given or implied.
	{`enum e { A = 2147483647, B };`, []string{`1:1 D_DECL_ENOFLOW enumerator 'B' value overflows INT_MAX (2147483647)`}},
	{`enum e { A = -2147483649 };`, []string{`1:14 D_DECL_ENOFLOW`}},

	// Bit-field widths.
	{`struct s { int x : 0; };`, []string{`1:20 D_DECL_BFCONST positive integral constant expression expected as bit-field size`}},
	{`struct s { int x : -1; };`, []string{`1:20 D_DECL_BFCONST`}},
	{`struct s { char x : 9; };`, []string{`1:17 D_DECL_BFSIZE bit-field too big for type: x`}},
	{`struct s { struct s m; };`, []string{`1:21 D_DECL_INCOMPLETE incomplete struct/union/enum struct s: m`}},
}

func TestTypeRuleErrors(t *testing.T) {
	for _, tt := range typeRuleErrors {
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

// typeRuleValid are programs the rules above must still accept.
var typeRuleValid = []string{
	`inline int64_t x = 1; inline char *p = 0; inline string s = "s"; inline uint8_t c = 300;`,
	`inline int *p = (void *)arg0; inline void *q = (int *)arg0; inline string t = (char *)arg0;`,
	"int a[10]; long m[2][3]; int *p[2];\nBEGIN { a[3] = 5; i = 2; a[i]++; a[i] += a[3]; m[1][2] = a[9]; p[1] = (int *)arg0; trace(p[1][0]); trace(sizeof(a) + sizeof(m[1])); }",
	"int a[4294967295 / 4294967295];\nBEGIN { a[0] = 1; }",
	`BEGIN { trace((long unsigned int)1); trace((unsigned long)1); trace((short unsigned)1); trace(sizeof(caddr_t)); trace((in6_addr_t *)arg0); }`,
	`enum e { A = 2147483646, B }; enum f { C = -2147483648 };`,
	`struct s { int x : 3, : 0; char c[2]; }; BEGIN { trace(sizeof(struct s)); trace(((struct s *)arg0)->c[1]); }`,
	`BEGIN { a[1] = 1; a[1]++; self->b[2]++; c["x"]--; }`,
}

func TestTypeRuleValid(t *testing.T) {
	for _, src := range typeRuleValid {
		if _, errs := checkSource(t, src, check.Config{}); len(errs) > 0 {
			t.Errorf("%q: unexpected errors:\n%s", src, errText(errs))
		}
	}
}

// TestTypeRuleConsts checks the values the rules above compute.
func TestTypeRuleConsts(t *testing.T) {
	for _, tt := range []struct {
		decls, expr string
		want        int64
	}{
		{"int a[10];", "sizeof(a)", 40},
		{"long m[2][3];", "sizeof(m[1])", 24},
		{"inline char C = 300;", "C", 44},
		{"inline uint8_t C = -1;", "C", 255},
		{"", "sizeof(long unsigned int)", 8},
	} {
		info, e := exprOf(t, tt.decls, "BEGIN", tt.expr)
		k, ok := info.Consts[e]
		if !ok || k.Int != tt.want {
			t.Errorf("%s: %v (known %v), want %d", tt.expr, k.Int, ok, tt.want)
		}
	}
}

// FuzzTypeRules is FuzzCheck seeded with the programs above: the checker
// never panics and checks the same way twice.
func FuzzTypeRules(f *testing.F) {
	for _, tt := range typeRuleErrors {
		f.Add(tt.src)
	}
	for _, src := range typeRuleValid {
		f.Add(src)
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
