package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/check/checktest"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/value"
)

var (
	fakeResolver = checktest.Resolver
	testMacros   = checktest.Macros
)

func progsOf(p *ast.Program) []*ast.Program { return []*ast.Program{p} }

// validPrograms must check without error (without -w). One behaviour per
// line; the fuzz target FuzzCheck, and FuzzCompile in package codegen, are
// seeded from this list.
var validPrograms = []string{
	// The order of speculate(), commit() and discard() DTrace allows.
	`BEGIN { speculate(1); trace(1); printf("x"); }`,
	`BEGIN { trace(1); discard(1); }`,
	`BEGIN { discard(1); commit(2); }`,
	`BEGIN { x = 1; commit(1); x = 2; }`,
	`BEGIN { speculate(1); y = 2; }`,
	// A variable read before the clause assigning it, declared; one a
	// predicate reads and its own clause assigns.
	"int x; BEGIN /x/ { } BEGIN { x = 1; }",
	"self int t; BEGIN /self->t/ { } BEGIN { self->t = 1; }",
	`BEGIN /n == 0/ { n = 1; }`,
	// lquantize() again with the same levels (a limit within a step of
	// the first one's), as DTrace compares them.
	`BEGIN { @ = lquantize(1, 0, 10, 2); @ = lquantize(1, 0, 11, 2); }`,
	// A declaration repeated with the same type.
	`int n; int n; self int s[int]; self int s[int]; BEGIN { n = 1; }`,
	// Probes, predicates and args[].
	`BEGIN { trace(1); }`,
	`BEGIN`,
	`BEGIN { }`,
	`BEGIN, END { trace(probename); }`,
	`BEGIN { printf("hello\n"); exit(0); }`,
	`END { printf("%d %s\n", pid, execname); }`,
	`syscall::read:entry { @[execname] = count(); }`,
	`syscall::read:entry { @bytes[execname, pid] = sum(args[2]); }`,
	`syscall::read:entry /args[0] == 0/ { @ = quantize(args[2]); }`,
	`syscall::read:entry /execname == "sh" && args[2] > 100/ { trace(args[2]); }`,
	`syscall::read:return /arg0 < 0/ { @err[errno] = count(); }`,
	`syscall::read:return { trace(args[1]); }`,
	`syscall::write:entry { trace(args[0]); trace(stringof(args[1])); }`,
	`syscall::open:entry { printf("%s\n", copyinstr(arg0)); }`,
	`syscall::open:entry { printf("%s %d\n", copyinstr(args[0]), args[1]); }`,
	`syscall::read:entry,syscall::write:entry { @[probefunc] = count(); }`,
	`syscall::*:entry { @[probefunc] = count(); }`,
	`syscall:::return /errno != 0/ { @[probefunc, errno] = count(); }`,
	`ERROR { printf("%d %d\n", arg1, args[4]); }`,
	`profile-997 { @[cpu] = count(); }`,
	`profile-997 /arg0/ { @[stack()] = count(); }`,
	`profile-997 /arg1/ { @[ustack()] = count(); }`,
	`profile:::profile-997 { @[sym(arg0)] = count(); }`,
	`profile-997 { @[func(arg0), mod(arg0)] = count(); }`,
	`profile-997 { @[usym(arg1), ufunc(arg1), umod(arg1), uaddr(arg1)] = count(); }`,
	`tick-1sec { exit(0); }`,
	"tick-1sec { printa(@); trunc(@); }\nBEGIN { @ = count(); }",
	"syscall::read:entry { self->ts = timestamp; }\n" +
		"syscall::read:return /self->ts/ { @[execname] = quantize(timestamp - self->ts); self->ts = 0; }",

	// Aggregations.
	`BEGIN { @c = count(); @s = sum(1); @a = avg(2); @mn = min(3); @mx = max(4); @sd = stddev(5); }`,
	`BEGIN { @ = quantize(5, 3); }`,
	`BEGIN { @ = lquantize(5, 0, 100, 10); }`,
	`BEGIN { @ = lquantize(5, 0, 100); }`,
	`BEGIN { @ = lquantize(5, -100, 100, 10, 3); }`,
	`BEGIN { @ = lquantize(5, -2147483648, 2147352577, 65535); }`,
	`BEGIN { @ = llquantize(5, 10, 0, 6, 20); }`,
	`BEGIN { @ = llquantize(5, 2, 0, 10, 4, 7); }`,
	`BEGIN { @ = llquantize(5, 10, 0, 16, 100); }`,
	`BEGIN { @ = llquantize(5, 2, 0, 60, 2); }`,
	`BEGIN { @[execname] = count(); @[execname] = count(); }`,
	`BEGIN { @[1] = count(); @[2 + 3] = count(); }`,
	`BEGIN { @[(char)1] = count(); @[(long)2] = count(); }`,
	`BEGIN { @[probefunc, probename] = count(); }`,
	`BEGIN { @[stack(5)] = count(); @u[ustack(3)] = count(); }`,
	"BEGIN { @a = count(); }\nEND { printa(@a); }",
	"BEGIN { @a[1] = count(); @b[1] = sum(2); }\nEND { printa(\"%d %@d %@d\\n\", @a, @b); }",
	"BEGIN { @a = count(); }\nEND { normalize(@a, 1000); denormalize(@a); clear(@a); }",
	"BEGIN { @a[\"x\"] = count(); }\nEND { trunc(@a, 10); trunc(@a); }",

	// Variables.
	`BEGIN { x = 1; y = x + 2; trace(y); }`,
	`BEGIN { s = "abc"; trace(s); }`,
	`BEGIN { s = execname; t = strjoin(s, "-x"); trace(t); }`,
	`BEGIN { s = "a"; s = execname; s = probefunc; }`,
	`BEGIN { x = probefunc; y = probename; trace(x); }`,
	`BEGIN { this->x = 1; trace(this->x * 2); }`,
	"BEGIN { self->x = 1; }\nEND { trace(self->x); }",
	"int x;\nEND { trace(x); }\nBEGIN { x = 5; }",
	`BEGIN { a[1] = 2; trace(a[1]); }`,
	`BEGIN { a["x", 2] = 3; trace(a["y", 4]); }`,
	`BEGIN { self->a[1] = 2; trace(self->a[1]); }`,
	`BEGIN { x++; ++x; x--; --x; trace(x); }`,
	`BEGIN { x += 2; x -= 1; x *= 3; x /= 2; x %= 5; x <<= 1; x >>= 1; x &= 7; x |= 8; x ^= 1; }`,
	`BEGIN { x = arg0; x = 1; }`,
	`BEGIN { x = -1; x = arg0; }`,
	`BEGIN { p = (char *)arg0; x = p[1]; }`,
	`syscall::read:entry { p = args[1]; trace(p[0]); }`,
	`int x; BEGIN { x = 1; }`,
	`string s; BEGIN { s = "a"; }`,
	`self int ts; syscall::read:entry { self->ts = timestamp; }`,
	`typedef int myint_t; myint_t v; BEGIN { v = (myint_t)3; }`,
	"inline int MAX = 100;\nBEGIN { trace(MAX * 2); }",
	"inline string NAME = \"sonde\";\nBEGIN { printf(\"%s\\n\", NAME); }",
	"inline int A = 2;\ninline int B = A * A;\nBEGIN { @ = lquantize(1, 0, B, A); }",
	`BEGIN /pid == $1/ { trace($2); trace($target); }`,
	`BEGIN { trace($$1); }`,

	// Expressions.
	`BEGIN { x = 1 ? 2 : 3; y = x > 1 ? "a" : "b"; }`,
	`BEGIN { x = !0 && 1 || 0 ^^ 1; }`,
	`BEGIN { x = (1 << 4) | (0xff & ~0x0f) ^ 3; }`,
	`BEGIN { x = 10 / 3 % 2 * 4 - -1; }`,
	`BEGIN { x = "a" == "b"; y = "a" < "b"; z = execname != "sh"; }`,
	`BEGIN { x = sizeof(int) + sizeof(uint64_t) + sizeof(char); }`,
	`BEGIN { trace(sizeof(execname)); }`,
	`BEGIN { x = (char)300; y = (unsigned short)-1; z = (int64_t)arg0; }`,
	`syscall::read:entry { p = (char *)arg1; trace(p); }`,
	`BEGIN { x = 'a' + 1; }`,
	`BEGIN { x = 0xffffffffffffffff; y = 10ull; z = 077; }`,
	`BEGIN { if (pid) { trace(1); } else if (tid) trace(2); else { trace(3); } }`,

	// Subroutines.
	`BEGIN { x = stringof(1); s = stringof(execname); }`,
	`BEGIN { n = strlen(execname); i = index("abc", "b"); j = rindex("abcb", "b", 1); }`,
	`BEGIN { s = substr("hello", 1, 3); t = substr("hello", 2); }`,
	`BEGIN { s = strchr("a/b", '/'); t = strrchr("a/b", '/'); u = strstr("abc", "b"); }`,
	`BEGIN { s = basename("/a/b"); t = dirname("/a/b"); }`,
	`BEGIN { s = toupper("a"); t = tolower("B"); }`,
	`BEGIN { s = lltostr(42); t = lltostr(42, 16); n = strtoll("42"); m = strtoll("2a", 16); }`,
	`BEGIN { a = htons(1); b = htonl(2); c = htonll(3); d = ntohs(a); e = ntohl(b); f = ntohll(c); }`,
	`BEGIN { s = inet_ntoa((ipaddr_t *)arg0); t = inet_ntop(2, (void *)arg0); u = inet_ntoa6((in6_addr_t *)arg0); }`,
	`BEGIN { x = index("ab", "b"); y = rindex("ab", "b", 1); s = strstr("ab", "b"); p = alloca(8); copyinto(arg0, 8, p); }`,
	`BEGIN { x = rand(); y = progenyof(1); }`,
	`BEGIN { x = getmajor(1); y = getminor(1); }`,
	`BEGIN { p = copyin(arg0, 8); s = copyinstr(arg0, 32); }`,

	// Actions.
	`BEGIN { stack(); ustack(); ustack(10); ustack(10, 1024); jstack(); }`,
	`BEGIN { tracemem(arg0, 16); tracemem(arg0, 16, 8); }`,
	`BEGIN { setopt("quiet"); setopt("bufsize", "4m"); }`,
	"BEGIN { spec = speculation(); speculate(spec); printf(\"x\"); }\nBEGIN { commit(1); }\nEND { discard(1); }",
	`BEGIN { exit(1 + 2); }`,
	`BEGIN { trace(probeprov); trace(probemod); trace(probefunc); trace(probename); }`,
	`BEGIN { trace(pid); trace(ppid); trace(tid); trace(uid); trace(gid); trace(cpu); }`,
	`BEGIN { trace(timestamp); trace(vtimestamp); trace(walltimestamp); trace(id); trace(epid); }`,
	`BEGIN { trace(curthread); trace(stackdepth); trace(ustackdepth); trace(caller); trace(ucaller); }`,
	`BEGIN { trace(arg0 + arg1 + arg2 + arg3 + arg4 + arg5 + arg6 + arg7 + arg8 + arg9); }`,

	// printf formats.
	`BEGIN { printf("%d %i %u %o %x %X %c %s %p %%\n", 1, 2, 3, 4, 5, 6, 'a', "s", 7); }`,
	`BEGIN { printf("%5d|%-5s|%05x|%.3s|%*d\n", 1, "a", 2, "abc", 4, 5); }`,
	`BEGIN { printf("%lld %llu %ld %hd %hhd %lx %hx\n", 1LL, 2ULL, (long)3, (short)4, (char)5, 6ULL, (unsigned short)7); }`,
	`BEGIN { printf("%a %A\n", arg0, arg0); }`,
	`BEGIN { printf("%Y %T\n", walltimestamp, timestamp); }`,
	`BEGIN { printf("%k\n", stack()); }`,
	`BEGIN { printf("%S\n", "x"); }`,

	// Pragmas.
	"#pragma D option quiet\nBEGIN { trace(1); }",
	"#pragma D option bufsize=4m\n#pragma D option switchrate=10hz\nBEGIN { }",
}

func TestValidPrograms(t *testing.T) {
	for _, src := range validPrograms {
		_, errs := checkSource(t, src, check.Config{})
		if len(errs) > 0 {
			t.Errorf("%q: unexpected errors:\n%s", src, errText(errs))
		}
	}
	if len(validPrograms) < 80 {
		t.Errorf("only %d valid programs", len(validPrograms))
	}
}

// checkSource parses and checks src with the fake resolver and the test
// macros (cfg supplies the rest); a parse error fails the test.
func checkSource(t *testing.T, src string, cfg check.Config) (*check.Info, diag.List) {
	t.Helper()
	prog, perrs := parser.ParseFile("t.d", []byte(src), &parser.Options{Macros: testMacros})
	if len(perrs) > 0 {
		t.Fatalf("%q: parse errors:\n%s", src, errText(perrs))
	}
	cfg.Resolver = fakeResolver
	cfg.Macros = testMacros
	return check.Check(progsOf(prog), cfg)
}

func errText(errs diag.List) string {
	var lines []string
	for _, e := range errs {
		lines = append(lines, errString(e))
	}
	return strings.Join(lines, "\n")
}

func errString(e *diag.Error) string {
	return fmt.Sprintf("%d:%d %s %s", e.Pos.Line, e.Pos.Col, e.Tag, e.Msg)
}

// invalidPrograms must fail with exactly the errors listed, each written
// "line:col TAG message"; a want may stop early and then matches as a
// prefix (e.g. without the message).
var invalidPrograms = []struct {
	src  string
	want []string
}{
	// Undefined names.
	{`BEGIN { trace(y); }`, []string{`1:15 D_IDENT_UNDEF failed to resolve y: unknown variable name`}},
	{`BEGIN { self->y = self->z; }`, []string{`1:25 D_VAR_UNDEF self->z has not yet been declared or assigned`}},
	{`BEGIN { trace(this->q); }`, []string{`1:21 D_VAR_UNDEF this->q has not yet been declared or assigned`}},
	{`BEGIN { foo(1); }`, []string{`1:9 D_FUNC_UNDEF failed to resolve foo: unknown function name`}},
	{`BEGIN { x = bar(); }`, []string{`1:13 D_FUNC_UNDEF failed to resolve bar`}},
	{`BEGIN { trace(count); }`, []string{`1:15 D_IDENT_BADREF aggregating function 'count' may not be referenced as scalar`}},
	{`BEGIN { f = func; }`, []string{`1:13 D_IDENT_BADREF function 'func' may not be referenced as scalar`}},
	{`BEGIN { trace($3); }`, []string{`1:15 D_MACRO_UNDEF macro argument $3 is not defined`}},
	{`BEGIN { trace($$3); }`, []string{`1:15 D_MACRO_UNDEF macro argument $3 is not defined`}},
	{`foo:bar:baz:qux { }`, []string{`1:1 D_PDESC_ZERO probe description foo:bar:baz:qux does not match any probes`}},
	{"#pragma D nonsense\nBEGIN { }", []string{`1:1 D_PRAGMA_INVAL invalid control directive: #pragma D nonsense`}},
	{"inline int X = 1;\ninline int X = 2;", []string{`2:12 D_DECL_IDRED identifier redefined: X`}},
	{"inline int A = A + 1;\nBEGIN { trace(A); }", []string{`1:16 D_IDENT_UNDEF failed to resolve A: inline A is defined in terms of itself`}},
	{"inline int A = B;\ninline int B = A;\nBEGIN { trace(B); }", []string{`1:16 D_IDENT_UNDEF failed to resolve B: unknown variable name`}},

	// Argument counts.
	{`BEGIN { exit(); }`, []string{`1:13 D_PROTO_LEN exit( ) prototype mismatch: 0 args passed, 1 expected`}},
	{`BEGIN { exit(1, 2); }`, []string{`1:13 D_PROTO_LEN exit( ) prototype mismatch: 2 args passed, 1 expected`}},
	{`BEGIN { trace(1, 2); }`, []string{`1:14 D_PROTO_LEN trace( ) prototype mismatch: 2 args passed, 1 expected`}},
	{`BEGIN { x = strlen(); }`, []string{`1:19 D_PROTO_LEN strlen( ) prototype mismatch: 0 args passed, 1 expected`}},
	{`BEGIN { x = substr("a"); }`, []string{`1:19 D_PROTO_LEN substr( ) prototype mismatch: 1 arg passed, at least 2 expected`}},
	{`BEGIN { printf(); }`, []string{`1:15 D_PROTO_LEN printf( ) prototype mismatch: 0 args passed, at least 1 expected`}},
	{`BEGIN { tracemem(arg0); }`, []string{`1:17 D_PROTO_LEN tracemem( ) prototype mismatch: 1 arg passed, at least 2 expected`}},
	{`BEGIN { normalize(@a); }`, []string{`1:18 D_NORMALIZE_PROTO normalize( ) prototype mismatch: 1 args passed, 2 expected`}},
	{`BEGIN { @a = count(); clear(); }`, []string{`1:28 D_CLEAR_PROTO clear( ) prototype mismatch: 0 args passed, 1 expected`}},
	{`BEGIN { @a = count(); trunc(@a, 1, 2); }`, []string{`1:28 D_TRUNC_PROTO trunc( ) prototype mismatch: 3 args passed, no more than 2 expected`}},
	{`BEGIN { trunc(); }`, []string{`1:14 D_TRUNC_PROTO trunc( ) prototype mismatch: 0 args passed, at least 1 expected`}},
	{`BEGIN { @a = count(); denormalize(@a, 1); }`, []string{`1:34 D_NORMALIZE_PROTO`}},
	{`BEGIN { @ = count(1); }`, []string{`1:18 D_PROTO_LEN count( ) prototype mismatch: 1 arg passed, 0 expected`}},
	{`BEGIN { @ = sum(); }`, []string{`1:16 D_PROTO_LEN sum( ) prototype mismatch: 0 args passed, 1 expected`}},
	{`BEGIN { @ = lquantize(1, 2); }`, []string{`1:22 D_PROTO_LEN lquantize( ) prototype mismatch: 2 args passed, at least 3 expected`}},
	{`BEGIN { @ = llquantize(1, 10, 0, 6); }`, []string{`1:23 D_PROTO_LEN llquantize( ) prototype mismatch: 4 args passed, at least 5 expected`}},

	// Argument types.
	{`BEGIN { x = strlen(1); }`, []string{"1:20 D_PROTO_ARG strlen( ) argument #1 is incompatible with prototype:\n\tprototype: string\n\t argument: int"}},
	{`BEGIN { x = 1 / 0; }`, []string{`1:15 D_DIV_ZERO expression contains division by zero`}},
	{`BEGIN { x = arg0 % (2 - 2); }`, []string{`1:18 D_DIV_ZERO`}},
	{`BEGIN { x = "a" & 1; }`, []string{`1:17 D_OP_INT operator & requires operands of integral type`}},
	{`BEGIN { x = 1 << "a"; }`, []string{`1:15 D_OP_INT`}},
	{`BEGIN { x = strjoin("a", 2); }`, []string{`1:26 D_PROTO_ARG strjoin( ) argument #2 is incompatible`}},
	{`BEGIN { x = inet_ntoa(arg0); }`, []string{"1:23 D_PROTO_ARG inet_ntoa( ) argument #1 is incompatible with prototype:\n\tprototype: ipaddr_t *\n\t argument: int64_t"}},
	{`BEGIN { x = inet_ntoa((char *)arg0); }`, []string{`1:23 D_PROTO_ARG inet_ntoa( ) argument #1 is incompatible`}},
	{`BEGIN { x = inet_ntoa6((ipaddr_t *)arg0); }`, []string{`1:24 D_PROTO_ARG inet_ntoa6( ) argument #1 is incompatible`}},
	{`BEGIN { x = inet_ntop(10, "::1"); }`, []string{`1:27 D_PROTO_ARG inet_ntop( ) argument #2 is incompatible`}},
	{`BEGIN { x = index("a", 1); }`, []string{`1:24 D_PROTO_ARG index( ) argument #2 is incompatible`}},
	{`BEGIN { x = strstr(1, "a"); }`, []string{`1:20 D_PROTO_ARG strstr( ) argument #1 is incompatible`}},
	{`BEGIN { x = strtoll(1); }`, []string{`1:21 D_PROTO_ARG strtoll( ) argument #1 is incompatible`}},
	{`BEGIN { copyinto(arg0, 8, arg1); }`, []string{`1:27 D_PROTO_ARG copyinto( ) argument #3 is incompatible`}},
	{`BEGIN { x = copyinto(arg0, 8, alloca(8)); }`, []string{`1:13 D_OP_VOID`}},
	{`BEGIN { exit("a"); }`, []string{`1:14 D_PROTO_ARG exit( ) argument #1 is incompatible`}},
	{`BEGIN { setopt(1); }`, []string{`1:16 D_PROTO_ARG setopt( ) argument #1 is incompatible`}},
	{`BEGIN { copyinstr(arg0, "x"); }`, []string{"1:25 D_PROTO_ARG copyinstr( ) argument #2 is incompatible with prototype:\n\tprototype: integer\n\t argument: string"}},
	{`BEGIN { tracemem(arg0, arg1); }`, []string{`1:24 D_TRACEMEM_SIZE tracemem( ) argument #2 must be a non-zero positive integral constant expression`}},
	{`BEGIN { x = lltostr(1, arg0); }`, []string{`1:24 D_PROTO_ARG lltostr( ) argument #2 must be an integer constant`}},
	{`BEGIN { x = stack(arg0); }`, []string{`1:19 D_STACK_SIZE stack( ) size must be a non-zero positive integral constant expression`}},
	{`BEGIN { x = stack(0); }`, []string{`1:19 D_STACK_SIZE stack( ) size must be a non-zero positive integral constant expression`}},
	{`BEGIN { x = stack(200); }`, []string{`1:19 D_STACK_SIZE`}},
	{`BEGIN { clear(1); }`, []string{"1:15 D_CLEAR_AGGARG clear( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: int"}},
	{`BEGIN { x = 1; trunc(x); }`, []string{`1:22 D_TRUNC_AGGARG`}},
	{`BEGIN { x = 1; normalize(x, 2); }`, []string{`1:26 D_NORMALIZE_AGGARG`}},
	{`BEGIN { @a = count(); normalize(@a, "two"); }`, []string{`1:37 D_NORMALIZE_SCALAR normalize( ) argument #2 must be of scalar type`}},
	{`BEGIN { @a = count(); trunc(@a, "two"); }`, []string{`1:33 D_TRUNC_SCALAR`}},
	{`BEGIN { @a[1] = count(); @b[1, 2] = count(); printa("%@d %@d\n", @a, @b); }`, []string{`1:70 D_PRINTA_AGGKEY printa( ): @a and @b do not have matching key signatures: @a has 1 key, @b has 2 keys`}},
	{`BEGIN { @a["x"] = count(); @b[1] = count(); printa(@a, @b); }`, []string{"1:56 D_PRINTA_AGGPROTO printa( ): @b[ ] key #1 is incompatible with @a:\n       @a key #1: string\n       @b key #1: int"}},
	{`BEGIN { printa(1); }`, []string{`1:16 D_PRINTA_AGGARG`}},
	{`BEGIN { @a = count(); printa("%d", 1); }`, []string{`1:36 D_PRINTA_AGGARG printa( ) argument #2 is incompatible with prototype`}},

	// printf formats and arguments.
	{`BEGIN { printf("%d\n", "s"); }`, []string{"1:24 D_PRINTF_ARG_TYPE printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %d\n\t prototype: char, short, int, long, or long long\n\t  argument: string"}},
	{`BEGIN { printf("%s\n", 1); }`, []string{`1:24 D_PRINTF_ARG_TYPE printf( ) argument #2 is incompatible with conversion #1 prototype`}},
	{`BEGIN { printf("%k\n", 1); }`, []string{`1:24 D_PRINTF_ARG_TYPE`}},
	{`BEGIN { printf("%*d\n", "a", 1); }`, []string{"1:25 D_PRINTF_DYN_TYPE printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: % * d\n\t prototype: int\n\t  argument: string"}},
	{`BEGIN { printf("%*d\n"); }`, []string{`1:23 D_PRINTF_DYN_PROTO printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding "*" argument`}},
	{`BEGIN { printf("%.*d\n", 1); }`, []string{`1:27 D_PRINTF_ARG_PROTO`}},
	{`BEGIN { printf("%*.*d\n", 1); }`, []string{`1:28 D_PRINTF_DYN_PROTO printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding ".*" argument`}},
	{`BEGIN { printf(""); }`, []string{`1:16 D_PRINTF_FMT_EMPTY printf( ) format string is empty`}},
	{`BEGIN { printf("%ld\n", 1); }`, []string{"1:25 D_PRINTF_ARG_TYPE printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %ld\n\t prototype: long\n\t  argument: int"}},
	{`BEGIN { printf("%lu\n", (long)1); }`, []string{`1:25 D_PRINTF_ARG_TYPE`}},
	{`BEGIN { printf("%hd\n", 1); }`, []string{`1:25 D_PRINTF_ARG_TYPE`}},
	{`BEGIN { printf("%d %d\n", 1); }`, []string{`1:28 D_PRINTF_ARG_PROTO printf( ) prototype mismatch: conversion #2 (%d) is missing a corresponding value argument`}},
	{`BEGIN { printf("%d\n", 1, 2); }`, []string{`1:27 D_PRINTF_ARG_EXTRA printf( ) prototype mismatch: only 1 arguments required by this format string`}},
	{`BEGIN { printf("%Q\n", 1); }`, []string{`1:16 D_SYNTAX printf( ) format conversion #1 is undefined: %Q`}},
	{`BEGIN { printf("%@d\n", 1); }`, []string{`1:16 D_PRINTF_AGG_CONV %@ conversion requires an aggregation and is not for use with printf( )`}},
	{`BEGIN { printf(execname); }`, []string{"1:16 D_PRINTF_ARG_FMT printf( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: string"}},
	{`BEGIN { printa("%d %@d\n"); }`, []string{`1:15 D_PRINTA_PROTO printa( ) prototype mismatch: 1 args passed, 2 expected`}},

	// Aggregations.
	{`BEGIN { @ = count(); @ = sum(1); }`, []string{"1:26 D_AGG_REDEF aggregation redefined: @\n\t current: @ = sum( )\n\tprevious: @ = count( ) : t.d:1:13"}},
	{`BEGIN { @ = lquantize(1, 0, 10, 1); @ = lquantize(1, 0, 20, 1); }`, []string{`1:41 D_LQUANT_MATCHLIM lquantize( ) limit (argument #2) doesn't match previous declaration: expected 10, found 20`}},
	{`BEGIN { @[1] = count(); @[1, 2] = count(); }`, []string{`1:26 D_PROTO_LEN @[ ] prototype mismatch: 2 keys passed, 1 expected`}},
	{`BEGIN { @a = count(); @a[1] = count(); }`, []string{`1:25 D_PROTO_LEN @a[ ] prototype mismatch: 1 key passed, 0 expected`}},
	{`BEGIN { @a[1] = count(); @a = count(); }`, []string{`1:26 D_PROTO_LEN @a[ ] prototype mismatch: 0 keys passed, 1 expected`}},
	{`BEGIN { @["a"] = count(); @[1] = count(); }`, []string{"1:29 D_PROTO_ARG @[ ] key #1 is incompatible with prototype:\n\tprototype: string\n\t      key: int"}},
	{`BEGIN { @a[stack()] = count(); @a[1] = count(); }`, []string{`1:35 D_PROTO_ARG`}},
	{`BEGIN { @a[1][2] = count(); }`, []string{`1:14 D_AGG_MDIM improper attempt to reference @a as a multi-dimensional array`}},
	{`BEGIN { @a += 1; }`, []string{`1:12 D_AGG_FUNC @a: aggregation may only be assigned with =`}},
	{`BEGIN { @a = 1; }`, []string{`1:14 D_AGG_FUNC @a must be assigned the result of an aggregating function`}},
	// an argument's own error comes first (the call is cooked before =)
	{`BEGIN { x = copyinto(1, 2, 3); }`, []string{`1:28 D_PROTO_ARG copyinto( ) argument #3`}},
	// an aggregation nothing defines is undefined before it is dynamic
	{`BEGIN { trace(@nosuch); }`, []string{`1:15 D_IDENT_UNDEF failed to resolve @nosuch`}},
	// type specifiers (dt_decl_check)
	{"int char x;\nBEGIN { }", []string{`1:1 D_DECL_COMBO invalid type combination`}},
	{"short long x;\nBEGIN { }", []string{`1:1 D_DECL_COMBO`}},
	{"unsigned float f;\nBEGIN { }", []string{`1:1 D_DECL_SIGNINT`}},
	{"long char c;\nBEGIN { }", []string{`1:1 D_DECL_CHARATTR`}},
	{"signed void *p;\nBEGIN { }", []string{`1:1 D_DECL_VOIDATTR`}},
	// clauses are compiled in order: a variable first assigned in a later
	// clause is not defined yet
	{"END { trace(x); }\nBEGIN { x = 5; }", []string{`1:13 D_IDENT_UNDEF failed to resolve x: unknown variable name`}},
	{"END { trace(self->t); }\nBEGIN { self->t = 5; }", []string{`1:19 D_VAR_UNDEF self->t has not yet been declared or assigned`}},
	{"END { trace(a[1]); }\nBEGIN { a[1] = 5; }", []string{`1:13 D_VAR_UNDEF a has not yet been declared or assigned`}},
	{`BEGIN { x = count(); }`, []string{`1:13 D_CG_EXPR aggregating function count( ) may not be called from a D expression (D program context required)`}},
	{`BEGIN { @ = sum("x"); }`, []string{`1:17 D_AGG_SCALAR sum( ) argument #1 must be of scalar type`}},
	{`BEGIN { @a = quantize(1, "x"); }`, []string{`1:26 D_PROTO_ARG quantize( ) increment value (argument #2) must be of scalar type`}},
	{`BEGIN { @a[trace(1)] = count(); }`, []string{`1:12 D_CG_EXPR`}},
	{"BEGIN { trace(@a); }\nBEGIN { @a = count(); }", []string{`1:15 D_TRACE_DYN trace( ) may not be applied to a dynamic expression`}},
	{`BEGIN { x = @a + 1; }`, []string{`1:13 D_AGG_SCALAR`}},
	{`BEGIN { printa(@nope); }`, []string{`1:16 D_PRINTA_AGGBAD undefined aggregation: @nope`}},
	{`BEGIN { clear(@nope); }`, []string{`1:15 D_CLEAR_AGGBAD`}},

	// lquantize() and llquantize() parameters.
	{`BEGIN { @ = lquantize(1, 10, 0, 1); }`, []string{`1:30 D_LQUANT_MISMATCH`}},
	{`BEGIN { @ = lquantize(1, 0, 10, 0); }`, []string{`1:33 D_LQUANT_STEPTYPE`}},
	{`BEGIN { @ = lquantize(1, 0, 10, -1); }`, []string{`1:33 D_LQUANT_STEPTYPE`}},
	{`BEGIN { @ = lquantize(1, 5, 5, 1); }`, []string{`1:32 D_LQUANT_STEPLARGE`}},
	{`BEGIN { @ = lquantize(1, 0, arg0, 1); }`, []string{`1:29 D_LQUANT_LIMTYPE lquantize( ) argument #2 must be an integer constant`}},
	{`BEGIN { @ = lquantize(1, 0, 100000, 65536); }`, []string{`1:37 D_LQUANT_STEPVAL`}},
	{`BEGIN { @ = lquantize(1, 0, 1000000, 1); }`, []string{`1:29 D_LQUANT_STEPSMALL`}},
	{`BEGIN { @ = lquantize(1, 0, 10, 20); }`, []string{`1:33 D_LQUANT_STEPLARGE`}},
	{`BEGIN { @ = lquantize(1, -4294967296, 10, 1); }`, []string{`1:26 D_LQUANT_BASEVAL`}},
	{`BEGIN { @ = lquantize(1, 0, 4294967296, 65535); }`, []string{`1:29 D_LQUANT_LIMVAL`}},
	{`BEGIN { @ = lquantize(1, -9223372036854775807 - 1, 9223372036854775807, 1); }`, []string{`1:26 D_LQUANT_BASEVAL`}},
	{`BEGIN { @ = lquantize(1, x, 10, 1); }`, []string{`1:26 D_IDENT_UNDEF`}},
	{`BEGIN { @ = lquantize(1, arg0, 10, 1); }`, []string{`1:26 D_LQUANT_BASETYPE lquantize( ) argument #1 must be an integer constant`}},
	{`BEGIN { @ = llquantize(1, 1, 0, 6, 20); }`, []string{`1:27 D_LLQUANT_FACTORSMALL`}},
	{`BEGIN { @ = llquantize(1, 10, -1, 6, 20); }`, []string{`1:31 D_LLQUANT_LOWVAL`}},
	{`BEGIN { @ = llquantize(1, 65536, 0, 6, 65536); }`, []string{`1:27 D_LLQUANT_FACTORVAL`}},
	{`BEGIN { @ = llquantize(1, 10, 6, 0, 20); }`, []string{`1:34 D_LLQUANT_MAGRANGE`}},
	{`BEGIN { @ = llquantize(1, 10, 2, 2, 10); }`, []string{`1:34 D_LLQUANT_MAGRANGE`}},
	{`BEGIN { @ = llquantize(1, 10, 0, 6, 0); }`, []string{`1:37 D_LLQUANT_FACTORNSTEPS`}},
	{`BEGIN { @ = llquantize(1, 10, 0, 3, 5); }`, []string{`1:37 D_LLQUANT_FACTORNSTEPS`}},
	{`BEGIN { @ = llquantize(1, 10, 0, 6, 15); }`, []string{`1:37 D_LLQUANT_FACTOREVEN`}},
	{`BEGIN { @ = llquantize(1, 10, 0, 3, 30); }`, []string{`1:37 D_LLQUANT_FACTOREVEN`}},
	{`BEGIN { @ = llquantize(1, 10, 0, 30, 10); }`, []string{`1:34 D_LLQUANT_MAGTOOBIG`}},
	{`BEGIN { @ = llquantize(1, 10, 0, 17, 10); }`, []string{`1:34 D_LLQUANT_MAGTOOBIG`}},
	{`BEGIN { @ = llquantize(1, 2, 0, 62, 2); }`, []string{`1:33 D_LLQUANT_MAGTOOBIG`}},
	{`BEGIN { @ = llquantize(1, x, 0, 6, 10); }`, []string{`1:27 D_IDENT_UNDEF`}},

	// Actions in expressions, destructive actions.
	{`BEGIN { x = printf("a"); }`, []string{`1:13 D_CG_EXPR tracing function printf( ) may not be called from a D expression (D program context required)`}},
	{`BEGIN { x = trace(1) + 1; }`, []string{`1:13 D_CG_EXPR`}},
	{`BEGIN { if (exit(0)) {} }`, []string{`1:13 D_CG_EXPR`}},
	{`BEGIN { trace(exit(0)); }`, []string{`1:15 D_CG_EXPR`}},
	{`BEGIN { system("ls"); }`, []string{`1:9 D_ACT_DESTRUCT system( ) is a destructive action: run with -w to allow it`}},
	{`BEGIN { raise(9); }`, []string{`1:9 D_ACT_DESTRUCT`}},
	{`BEGIN { stop(); }`, []string{`1:9 D_ACT_DESTRUCT`}},

	// Types.
	{`BEGIN { x = 1; x = "s"; }`, []string{`1:18 D_OP_INCOMPAT operands have incompatible types: "int" = "string"`}},
	{`BEGIN { s = "a"; s = 1; }`, []string{`1:20 D_OP_INCOMPAT operands have incompatible types: "string" = "int"`}},
	{`BEGIN { s = "a"; s += 1; }`, []string{`1:20 D_OP_INCOMPAT`}},
	{`BEGIN { x = "a" + 1; }`, []string{`1:17 D_OP_INCOMPAT operands have incompatible types: "string" + "int"`}},
	{`BEGIN { x = -"a"; }`, []string{`1:13 D_OP_ARITH operator - requires an operand of arithmetic type`}},
	{`BEGIN { x = "a" == 1; }`, []string{`1:17 D_OP_INCOMPAT operands have incompatible types: "string" == "int"`}},
	{`BEGIN { x = 1 ? "a" : 2; }`, []string{`1:15 D_OP_INCOMPAT operator ?: operands must have compatible types`}},
	{`BEGIN { x = stack() ? 1 : 2; }`, []string{`1:13 D_OP_SCALAR`}},
	{`BEGIN { s = "abc"; s++; }`, []string{`1:21 D_OP_SCALAR`}},
	{`BEGIN { s = "abc"; --s; }`, []string{`1:20 D_OP_SCALAR`}},
	{`BEGIN { self->s = "abc"; self->s--; }`, []string{`1:33 D_OP_SCALAR`}},
	{`BEGIN /"a" + 1/ { }`, []string{`1:12 D_OP_INCOMPAT`}},
	{`BEGIN /stack()/ { }`, []string{`1:8 D_PRED_SCALAR predicate result must be of scalar type`}},
	{`BEGIN { if (stack()) { } }`, []string{`1:13 D_PRED_SCALAR predicate result must be of scalar type`}},
	{`BEGIN { s = (string)1; }`, []string{`1:13 D_CAST_INVAL invalid cast expression: "int" to "string" (use stringof)`}},
	{`BEGIN { x = (int)"a"; }`, []string{`1:13 D_CAST_INVAL invalid cast expression: "string" to "int"`}},
	{`BEGIN { x = *arg0; }`, []string{`1:13 D_DEREF_NONPTR cannot dereference non-pointer type`}},
	{`BEGIN { x = 1; y = x[0]; }`, []string{`1:21 D_DEREF_NONPTR`}},
	{`BEGIN { x = curthread->pid; }`, []string{`1:22 D_OPERAND member pid: operator -> cannot be applied to this operand`}},
	{`BEGIN { x = offsetof(struct foo, bar); }`, []string{`1:13 D_OFFSETOF_TYPE`}},
	{`BEGIN { a[1] = 1; trace(a); }`, []string{`1:25 D_IDENT_BADREF associative array 'a' may not be referenced as scalar`}},
	{`BEGIN { a[1] = 1; a = 2; }`, []string{`1:19 D_IDENT_BADREF`}},
	{`BEGIN { x = 1; x[1] = 2; }`, []string{`1:17 D_ARR_BADREF x is a scalar and may not be subscripted`}},
	{`BEGIN { a[1] = 1; a[1, 2] = 2; }`, []string{`1:20 D_PROTO_LEN a[ ] prototype mismatch: 2 keys passed, 1 expected`}},
	{`BEGIN { self->a[1, 2] = 1; self->a[1] = 2; }`, []string{`1:35 D_PROTO_LEN self->a[ ] prototype mismatch: 1 key passed, 2 expected`}},
	{`BEGIN { a[1] = 1; a["x"] = 2; }`, []string{"1:21 D_PROTO_ARG a[ ] key #1 is incompatible with prototype:\n\tprototype: int64_t\n\t      key: string"}},

	// Writes to built-ins and constants.
	{`BEGIN { pid = 1; }`, []string{`1:9 D_OP_WRITE operator = can only be applied to a writable variable: pid is a read-only built-in variable`}},
	{`BEGIN { execname = "x"; }`, []string{`1:9 D_OP_WRITE operator = can only be applied to a writable variable: execname is a read-only built-in variable`}},
	{`BEGIN { timestamp++; }`, []string{`1:9 D_OP_WRITE`}},
	{`BEGIN { args[0] = 1; }`, []string{`1:9 D_OP_WRITE operator = can only be applied to a writable variable: args is a read-only built-in variable`}},
	{`BEGIN { arg0 += 1; }`, []string{`1:9 D_OP_WRITE`}},
	{"inline int X = 1;\nBEGIN { X = 2; }", []string{`2:9 D_OP_WRITE`}},
	{`BEGIN { 1 = 2; }`, []string{`1:9 D_OP_LVAL`}},

	// args[].
	{`syscall::read:entry { trace(args[3]); }`, []string{`1:34 D_ARGS_IDX index 3 is out of range for syscall::read:entry args[ ]`}},
	{`syscall::read:entry { trace(args[-1]); }`, []string{`1:34 D_ARGS_IDX index -1 is out of range`}},
	{`BEGIN { trace(args[20]); }`, []string{`1:20 D_ARGS_IDX`}},
	{`BEGIN { trace(args[-1]); }`, []string{`1:20 D_ARGS_IDX`}},
	{`syscall::*:entry { trace(args[0]); }`, []string{`1:30 D_ARGS_MULTI`}},
	{`syscall::read:entry { trace(args[arg0]); }`, []string{`1:34 D_ARGS_IDX index of args[] must be an integer constant`}},
	{`syscall::read:entry { trace(args); }`, []string{`1:29 D_IDENT_BADREF associative array 'args' may not be referenced as scalar`}},
}

func TestInvalidPrograms(t *testing.T) {
	for _, tt := range invalidPrograms {
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
	if len(invalidPrograms) < 60 {
		t.Errorf("only %d invalid programs", len(invalidPrograms))
	}
}

// exprOf checks "probe { trace(expr); }" (after decls) and returns the
// Info and the traced expression.
func exprOf(t *testing.T, decls, probe, expr string) (*check.Info, ast.Expr) {
	t.Helper()
	src := decls + "\n" + probe + " { trace(" + expr + "); }"
	info, errs := checkSource(t, src, check.Config{})
	if len(errs) > 0 {
		t.Fatalf("%q: unexpected errors:\n%s", src, errText(errs))
	}
	cl := info.Clauses[len(info.Clauses)-1].Node
	stmt := cl.Body.Stmts[len(cl.Body.Stmts)-1].(*ast.ExprStmt)
	return info, stmt.X.(*ast.CallExpr).Args[0]
}

func TestTypes(t *testing.T) {
	for _, tt := range []struct {
		decls, probe, expr string
		want               string // type name
		size               int
	}{
		{"", "BEGIN", "1", "int", 4},
		{"", "BEGIN", "0x80000000", "uint_t", 4},
		{"", "BEGIN", "2147483648", "int64_t", 8},
		{"", "BEGIN", "1u", "uint_t", 4},
		{"", "BEGIN", "1ul", "uint64_t", 8},
		{"", "BEGIN", "0xffffffffffffffff", "uint64_t", 8},
		{"", "BEGIN", "'a'", "int", 4},
		{"", "BEGIN", `"abc"`, "string", 4},
		{"", "BEGIN", "pid", "pid_t", 4},
		{"", "BEGIN", "uid", "uid_t", 4},
		{"", "BEGIN", "timestamp", "uint64_t", 8},
		{"", "BEGIN", "walltimestamp", "int64_t", 8},
		{"", "BEGIN", "execname", "string", 16},
		{"", "BEGIN", "probefunc", "string", 128},
		{"", "BEGIN", "arg0", "int64_t", 8},
		{"", "BEGIN", "curthread", "struct task_struct *", 8},
		{"", "BEGIN", "(char)1", "char", 1},
		{"", "BEGIN", "(unsigned short)1", "uint16_t", 2},
		{"", "BEGIN", "(char)1 + (char)2", "int", 4},
		{"", "BEGIN", "1 + 1u", "uint_t", 4},
		{"", "BEGIN", "1 + 1l", "int64_t", 8},
		{"", "BEGIN", "timestamp - 1", "uint64_t", 8},
		{"", "BEGIN", "-(char)1", "int", 4},
		{"", "BEGIN", "1 == 2", "int", 4},
		{"", "BEGIN", `"a" < "b"`, "int", 4},
		{"", "BEGIN", "(char)1 << 40", "int", 4},
		{"", "BEGIN", `1 ? "ab" : "abcd"`, "string", 5},
		{"", "BEGIN", "sizeof(int)", "size_t", 8},
		{"", "BEGIN", "strlen(execname)", "size_t", 8},
		{"", "BEGIN", "strjoin(execname, \"x\")", "string", 256},
		{"", "BEGIN", "copyinstr(arg0, 10)", "string", 11},
		{"", "BEGIN", "lltostr(1)", "string", 66},
		{"", "BEGIN", "inet_ntoa((ipaddr_t *)arg0)", "string", 16},
		{"", "BEGIN", "htons(1)", "uint16_t", 2},
		{"", "BEGIN", "stack()", "stack()", 8},
		{"", "BEGIN", "ustack(5)", "ustack()", 8},
		{"", "BEGIN", "sym(arg0)", "_symaddr", 8},
		{"", "BEGIN", "uaddr(arg0)", "_usymaddr", 8},
		{"", "BEGIN", "copyin(arg0, 4)", "void *", 8},
		{"", "BEGIN", "$1", "int", 4},
		{"", "BEGIN", "$big", "int64_t", 8},
		{"", "BEGIN", "$2", "string", 5},
		{"", "BEGIN", "$$1", "string", 3},
		{"inline int N = 3;", "BEGIN", "N", "int", 4},
		{"inline char C = 3;", "BEGIN", "C", "char", 1},
		{"int64_t v;", "BEGIN", "v", "int64_t", 8},
		{"uint8_t v;", "BEGIN", "v", "uint8_t", 1},
		{"", "syscall::read:entry", "args[0]", "int", 4},
		{"", "syscall::read:entry", "args[1]", "char *", 8},
		{"", "syscall::read:entry", "args[2]", "uint64_t", 8},
		{"", "syscall::read:entry", "args[1][0]", "char", 1},
		{"", "syscall::write:entry", "args[0]", "uint_t", 4},
		{"", "syscall::write:entry", "args[1]", "char *", 8},
		{"", "syscall::open:entry", "args[2]", "uint16_t", 2},
		{"", "syscall::read:return", "args[0]", "int64_t", 8},
		{"", "profile-997", "args[0]", "uint64_t", 8},
		{"", "ERROR", "args[5]", "uint64_t", 8},
		{"", "syscall::read*:entry", "args[2]", "uint64_t", 8},
		{"", "BEGIN", "args[3]", "int64_t", 8},
	} {
		info, x := exprOf(t, tt.decls, tt.probe, tt.expr)
		typ := info.Types[x]
		if typ == nil {
			t.Errorf("%s: no type", tt.expr)
			continue
		}
		if typ.String() != tt.want || typ.Size != tt.size {
			t.Errorf("%s { trace(%s); }: type %s size %d, want %s size %d", tt.probe, tt.expr, typ, typ.Size, tt.want, tt.size)
		}
	}
}

func TestConsts(t *testing.T) {
	for _, tt := range []struct {
		decls, expr string
		want        check.Const
	}{
		{"", "42", check.Const{Int: 42}},
		{"", "-42", check.Const{Int: -42}},
		{"", "(1 + 2) * 3 - 4 / 2 % 3", check.Const{Int: 7}},
		{"", "1 << 10 | 3 & 1 ^ 2", check.Const{Int: 1024 | (3 & 1) ^ 2}},
		{"", "~0", check.Const{Int: -1}},
		{"", "!5", check.Const{Int: 0}},
		{"", "3 > 2 && 2 > 1", check.Const{Int: 1}},
		{"", "1 ^^ 1", check.Const{Int: 0}},
		{"", "(char)300", check.Const{Int: 44}},
		{"", "(unsigned char)-1", check.Const{Int: 255}},
		{"", "(short)65535", check.Const{Int: -1}},
		{"", "(uint32_t)-1", check.Const{Int: 4294967295}},
		{"", "sizeof(int)", check.Const{Int: 4}},
		{"", "sizeof(char)", check.Const{Int: 1}},
		{"", "sizeof(uint64_t)", check.Const{Int: 8}},
		{"", "sizeof(char *)", check.Const{Int: 8}},
		{"", "sizeof(pid)", check.Const{Int: 4}},
		{"", "sizeof(execname)", check.Const{Int: 16}},
		{"", "sizeof(int) * 2 + 1", check.Const{Int: 9}},
		{"", "'A'", check.Const{Int: 65}},
		{"", `"str"`, check.Const{IsStr: true, Str: "str"}},
		{"", "$1 + 1", check.Const{Int: 43}},
		{"", "$target", check.Const{Int: 1234}},
		{"", "$2", check.Const{IsStr: true, Str: "read"}},
		{"", "$$1", check.Const{IsStr: true, Str: "42"}},
		{"inline int N = 3;", "N", check.Const{Int: 3}},
		{"inline int N = 3;", "N * N + 1", check.Const{Int: 10}},
		{"inline int N = 3;\ninline int M = N << 2;", "M", check.Const{Int: 12}},
		{"inline int S = sizeof(uint16_t);", "S", check.Const{Int: 2}},
		{"", "(uint64_t)-1 / 2", check.Const{Int: 1<<63 - 1}},
		{"", "(uint64_t)-1 >> 63", check.Const{Int: 1}},
		{"", "-1 >> 63", check.Const{Int: -1}},
		{"", "-1 < (uint64_t)1", check.Const{Int: 0}},
		{"", "(uint32_t)1 > -1", check.Const{Int: 0}},
		{"", "(uint32_t)0 - 1", check.Const{Int: 0xffffffff}},
		{"", "(uint8_t)255 + 1", check.Const{Int: 256}},
		{"inline string NAME = \"x\";", "NAME", check.Const{IsStr: true, Str: "x"}},
	} {
		info, x := exprOf(t, tt.decls, "BEGIN", tt.expr)
		got, ok := info.Consts[x]
		if !ok || got != tt.want {
			t.Errorf("%s: const %+v (%v), want %+v", tt.expr, got, ok, tt.want)
		}
	}
	// Not constants.
	for _, expr := range []string{"arg0", "pid + 1", "1 / x", "x", "strlen(\"abc\")", "1 ? 2 : 3"} {
		info, x := exprOf(t, "int x;", "BEGIN", expr)
		if k, ok := info.Consts[x]; ok {
			t.Errorf("%s: unexpected const %+v", expr, k)
		}
	}
}

func TestVarScopes(t *testing.T) {
	src := "int g;\n" +
		"syscall::read:entry { self->ts = timestamp; this->n = args[2]; g = 1; s = execname; a[pid] = 1; @c[probefunc] = count(); }\n" +
		"syscall::read:return /self->ts/ { @t = quantize(timestamp - self->ts); self->ts = 0; trace(this->n); trace(a[pid]); }"
	info, errs := checkSource(t, src, check.Config{})
	if len(errs) > 0 {
		t.Fatalf("unexpected errors:\n%s", errText(errs))
	}
	vars := func(vs []*check.Var) string {
		var out []string
		for _, v := range vs {
			s := fmt.Sprintf("%s:%s", v.Name, v.Type)
			if v.Assoc {
				s += fmt.Sprintf("%v", v.Keys)
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		name      string
		got, want string
	}{
		{"globals", vars(info.Globals), "g:int s:string a:int[int64_t]"},
		{"selfs", vars(info.Selfs), "ts:uint64_t"},
		{"thiss", vars(info.Thiss), "n:uint64_t"},
		{"aggs", vars(info.Aggs), "c:aggregation t:aggregation"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	// Every reference resolves to the variable of its scope.
	scopes := map[string]check.VarScope{}
	for x, v := range info.Uses {
		var name string
		switch x := x.(type) {
		case *ast.Ident:
			name = x.Name
		case *ast.SelfVar:
			name = "self->" + x.Name
		case *ast.ThisVar:
			name = "this->" + x.Name
		case *ast.AggVar:
			name = "@" + x.Name
		default:
			continue
		}
		if s, ok := scopes[name]; ok && s != v.Scope {
			t.Errorf("%s used with scopes %d and %d", name, s, v.Scope)
		}
		scopes[name] = v.Scope
	}
	want := map[string]check.VarScope{"g": check.Global, "s": check.Global, "a": check.Global,
		"self->ts": check.Self, "this->n": check.This, "@c": check.Aggregation, "@t": check.Aggregation}
	for name, s := range want {
		if got, ok := scopes[name]; !ok || got != s {
			t.Errorf("%s: scope %d (%v), want %d", name, got, ok, s)
		}
	}
	if len(info.Clauses) != 2 || len(info.Clauses[0].Probes) != 1 || info.Clauses[0].Probes[0].ID != 4 ||
		len(info.Clauses[1].Probes) != 1 || info.Clauses[1].Probes[0].ID != 5 || len(info.Probes) != 2 {
		t.Errorf("clauses matched the wrong probes")
	}
}

func TestAggregations(t *testing.T) {
	src := `BEGIN {
	@c = count(); @s[1] = sum(2); @a["k", 1] = avg(3); @mn = min(4); @mx = max(5); @sd = stddev(6);
	@q = quantize(7); @l = lquantize(8, -10, 100, 5); @l2 = lquantize(9, 0, 10);
	@ll = llquantize(10, 10, 1, 4, 20); @k[stack()] = count(); @u[execname, pid, probefunc] = count();
}`
	info, errs := checkSource(t, src, check.Config{})
	if len(errs) > 0 {
		t.Fatalf("unexpected errors:\n%s", errText(errs))
	}
	for _, tt := range []struct {
		name   string
		fn     value.AggFunc
		params value.AggParams
		keys   string
	}{
		{"c", value.Count, value.AggParams{}, "[]"},
		{"s", value.Sum, value.AggParams{}, "[int]"},
		{"a", value.Avg, value.AggParams{}, "[string int]"},
		{"mn", value.Min, value.AggParams{}, "[]"},
		{"mx", value.Max, value.AggParams{}, "[]"},
		{"sd", value.Stddev, value.AggParams{}, "[]"},
		{"q", value.Quantize, value.AggParams{}, "[]"},
		{"l", value.Lquantize, value.AggParams{Base: -10, Limit: 100, Step: 5}, "[]"},
		{"l2", value.Lquantize, value.AggParams{Base: 0, Limit: 10, Step: 1}, "[]"},
		{"ll", value.Llquantize, value.AggParams{Factor: 10, Low: 1, High: 4, Steps: 20}, "[]"},
		{"k", value.Count, value.AggParams{}, "[stack()]"},
		{"u", value.Count, value.AggParams{}, "[string pid_t string]"},
	} {
		var v *check.Var
		for _, a := range info.Aggs {
			if a.Name == tt.name {
				v = a
			}
		}
		if v == nil {
			t.Errorf("@%s: missing", tt.name)
			continue
		}
		if !v.HasFunc || v.Func != tt.fn || v.Params != tt.params || fmt.Sprint(v.Keys) != tt.keys || v.Scope != check.Aggregation {
			t.Errorf("@%s: %v %+v keys %v, want %v %+v keys %s", tt.name, v.Func, v.Params, v.Keys, tt.fn, tt.params, tt.keys)
		}
	}
	for i, v := range info.Aggs {
		if v.ID != i {
			t.Errorf("@%s: ID %d, want %d", v.Name, v.ID, i)
		}
	}
}

func TestCalls(t *testing.T) {
	info, errs := checkSource(t, `BEGIN { @ = count(); printf("%d", strlen(execname)); exit(0); }`, check.Config{})
	if len(errs) > 0 {
		t.Fatalf("unexpected errors:\n%s", errText(errs))
	}
	kinds := map[string]check.BuiltinKind{}
	for _, b := range info.Calls {
		kinds[b.Name] = b.Kind
	}
	want := map[string]check.BuiltinKind{"count": check.AggFunc, "printf": check.Action, "strlen": check.Subr, "exit": check.Action}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("calls %v, want %v", kinds, want)
	}
}

func TestOptions(t *testing.T) {
	info, errs := checkSource(t, "#pragma D option quiet\n#pragma D option bufsize=4m\nBEGIN { }", check.Config{})
	if len(errs) > 0 {
		t.Fatalf("unexpected errors:\n%s", errText(errs))
	}
	if got := fmt.Sprint(info.Options); !strings.Contains(got, "quiet ") || !strings.Contains(got, "bufsize 4m") {
		t.Errorf("options %s", got)
	}
}

// TestConfig covers what Config changes: -w allows destructive actions,
// -Z descriptions that match nothing, strsize the size of strings.
func TestConfig(t *testing.T) {
	src := `BEGIN { system("echo %d", pid); raise(9); stop(); }`
	if _, errs := checkSource(t, src, check.Config{Destructive: true}); len(errs) > 0 {
		t.Errorf("-w: unexpected errors:\n%s", errText(errs))
	}
	src = "foo:::bar { trace(args[2]); }\nBEGIN { }"
	info, errs := checkSource(t, src, check.Config{ZeroMatches: true})
	if len(errs) > 0 {
		t.Errorf("-Z: unexpected errors:\n%s", errText(errs))
	} else if len(info.Clauses[0].Probes) != 0 {
		t.Errorf("-Z: clause matched %d probes", len(info.Clauses[0].Probes))
	}
	info, errs = checkSource(t, `BEGIN { s = execname; t = strjoin("a", "b"); }`, check.Config{StrSize: 64})
	if len(errs) > 0 {
		t.Fatalf("strsize: unexpected errors:\n%s", errText(errs))
	}
	for _, v := range info.Globals {
		if v.Type.Kind != check.String || v.Type.Size != 64 {
			t.Errorf("strsize=64: %s is %s of %d bytes", v.Name, v.Type, v.Type.Size)
		}
	}
}

// TestInlineChain is a regression test: each use of an inline re-checked
// its value, so a chain of inlines that each use the previous one twice
// took time exponential in its length (and one defined in terms of itself
// overflowed the stack). A slow checker shows up as the test timeout.
func TestInlineChain(t *testing.T) {
	var b strings.Builder
	b.WriteString("inline int64_t A0 = 1;\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "inline int64_t A%d = A%d + A%d;\n", i, i-1, i-1)
	}
	info, x := exprOf(t, b.String(), "BEGIN", "A60")
	if k := info.Consts[x]; k.Int != 1<<60 {
		t.Errorf("A60 = %d, want %d", k.Int, int64(1)<<60)
	}
	src := strings.Replace(b.String(), "A0 = 1", "A0 = y", 1) + "BEGIN { trace(A60); }"
	_, errs := checkSource(t, src, check.Config{})
	if len(errs) != 1 || errs[0].Tag != "D_IDENT_UNDEF" {
		t.Errorf("undefined y: got\n%s", errText(errs))
	}
}
