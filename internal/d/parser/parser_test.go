package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/diag"
)

// testMacros are the macro variables defined for the valid programs.
var testMacros = &Options{Macros: map[string]string{
	"1": "read", "2": "malloc", "target": "1234", "pid": "42",
}}

// validPrograms must parse without error. They come from the Dynamic
// Tracing Guide, Brendan Gregg's one-liners and DTrace's own scripts.
var validPrograms = []string{
	// One-liners.
	`syscall:::entry { @num[execname] = count(); }`,
	`syscall::read:entry { @[execname] = count(); }`,
	`syscall::open*:entry { printf("%s %s\n", execname, copyinstr(arg0)); }`,
	`syscall:::entry { @num[probefunc] = count(); }`,
	`syscall:::entry { @num[pid, execname] = count(); }`,
	`syscall::open*:entry /execname == "sh"/ { trace(copyinstr(arg0)) }`,
	`proc:::exec-success { trace(curpsinfo->pr_psargs); }`,
	`syscall::read:return /execname == "sshd"/ { @ = quantize(arg0); }`,
	`syscall::read:entry { @bytes[execname] = sum(arg2); }`,
	`sysinfo:::readch { @bytes[execname] = sum(arg0); }`,
	`io:::start { printf("%d %s %d\n", pid, execname, args[0]->b_bcount); }`,
	`io:::start { @size[execname] = quantize(args[0]->b_bcount); }`,
	`sched:::on-cpu { @[execname] = count(); }`,
	`sched:::off-cpu { self->ts = timestamp; }`,
	`profile:::profile-1001 /pid == $target/ { @[ustack()] = count(); }`,
	`profile-997 /arg1/ { @[ustack()] = count(); }`,
	`profile-997 /arg0/ { @[stack()] = count(); }`,
	`fbt::: { @[probefunc] = count(); }`,
	`vminfo:::as_fault { @mem[execname] = sum(arg0); }`,
	`vminfo:::pgpgin { @pg[execname] = sum(arg0); }`,
	`proc:::signal-send { @[execname, stringof(args[1]->pr_fname), args[2]] = count(); }`,
	`lockstat:::adaptive-block { @[stack(5)] = sum(arg1); }`,
	`syscall::write:entry /fds[arg0].fi_fs == "sockfs"/ { @[execname] = count(); }`,
	`pid$target::malloc:entry { @[ustack()] = quantize(arg0); }`,
	`pid$target:libc.so.6:malloc:entry { @ = quantize(arg0); }`,
	`pid$target::$2:entry { @ = count(); }`,
	`syscall::$1:entry { @[execname] = count(); }`,
	`syscall::*read*:entry { @[probefunc] = count(); }`,
	`python*:::function-entry { @[copyinstr(arg1)] = count(); }`,
	`BEGIN { printf("hello\n"); exit(0); }`,
	`tick-1sec { printa(@); trunc(@); }`,
	`tick-1s { printa(@); trunc(@); }`,
	`tick-5sec { exit(0) }`,
	`profile:::tick-1sec { }`,
	`END { printa("%-20s %@d\n", @num); }`,
	`dtrace:::BEGIN { }`,
	`dtrace:::END { }`,
	`fbt:mod:fn:entry { }`,
	`sdt:::* { }`,
	`::: { }`,
	`tcp:::send { @[args[2]->ip_daddr] = count(); }`,
	`ip:::receive { @[args[2]->ip_saddr] = sum(args[2]->ip_plength); }`,
	`proc:::create { printf("%d -> %d\n", pid, args[0]->pr_pid); }`,
	`proc:::exit /args[0] == 0/ { @[execname] = count(); }`,
	`syscall::exec*:return { printf("%s\n", curpsinfo->pr_psargs); }`,
	`fbt::vfs_read:entry { @[stringof(args[0]->f_path.dentry->d_name.name)] = count(); }`,
	`fbt::tcp_sendmsg:entry { @[args[1]->sk_family] = count(); }`,
	`io:::start { start[args[0]->b_edev, args[0]->b_blkno] = timestamp; }`,
	`io:::done /start[args[0]->b_edev, args[0]->b_blkno]/ { @[args[1]->dev_statname] = quantize(timestamp - start[args[0]->b_edev, args[0]->b_blkno]); }`,
	`syscall::open:entry /strstr(copyinstr(arg0), "foo") != NULL/ { }`,
	`syscall:::entry /pid == $1/ { }`,
	`BEGIN { printf("%Y\n", walltimestamp); }`,
	`BEGIN { printf("%s\n", probeprov); }`,
	`syscall::read:entry,syscall::write:entry { @[probefunc] = count(); }`,
	`syscall::read:entry, syscall::write:entry /pid == 123/ { }`,
	`syscall::read:entry / pid == 1 / { }`,
	`syscall::read:entry /arg2 > 1024 / { }`,
	`syscall::read:entry /(arg0 / 2) > 3/ { }`,
	`syscall::read:entry /arg0 / 2 > 3/ { }`,
	`syscall::read:entry /arg0/{ }`,
	"syscall::read:entry/arg0/{ }",
	`BEGIN /x/ /* comment */ { }`,
	"syscall::read:entry /x/ // comment\n{ }",
	`BEGIN {}`,
	`BEGIN { }`,
	`BEGIN`,
	`syscall::read:entry`,
	`BEGIN { ; }`,
	`BEGIN { x = 1;; y = 2; }`,
	`BEGIN { exit(0) }`,

	// Thread-local and clause-local variables.
	"syscall::read:entry { self->ts = timestamp; }\n" +
		"syscall::read:return /self->ts/ { @[execname] = quantize(timestamp - self->ts); self->ts = 0; }",
	`syscall::exit:entry { self->ts = 0; }`,
	`BEGIN { this->x = 1; trace(this->x); }`,
	`BEGIN { self->x[1] = 2; }`,
	`BEGIN { self->a = self->b = 0; }`,
	`BEGIN { this int x; this->x = 1; }`,
	`BEGIN { this string s, t; }`,
	"this int local;\nBEGIN { this->local = 1; }",

	// Aggregations.
	`BEGIN { @a[execname, pid] = count(); }`,
	`BEGIN { @c = count(); @s = sum(1); } END { printa(@c); }`,
	`BEGIN { @[probefunc] = lquantize(arg0, 0, 1000, 100); }`,
	`BEGIN { @ = llquantize(arg0, 10, 0, 6, 20); }`,
	`BEGIN { @a = avg(x); @m = min(x); @M = max(x); @s = stddev(x); }`,
	`END { normalize(@, 1000); denormalize(@); clear(@); }`,
	`END { printa("%s %@d %@d\n", @a, @b); }`,
	`END { trunc(@, 10); printa(@); }`,
	`BEGIN { setopt("aggsortkey"); }`,

	// Speculation and destructive actions.
	"syscall::open:entry { self->spec = speculation(); speculate(self->spec); printf(\"%s\\n\", copyinstr(arg0)); }\n" +
		"syscall::open:return /self->spec/ { commit(self->spec); self->spec = 0; }",
	`BEGIN { discard(1); }`,
	`BEGIN { system("echo %d", pid); }`,
	`BEGIN { raise(SIGINT); stop(); }`,
	`BEGIN { copyout(buf, arg0, 10); copyoutstr("x", arg1, 2); }`,

	// Subroutines.
	`BEGIN { stack(); ustack(5, 1024); jstack(); }`,
	`BEGIN { tracemem(arg0, 32); }`,
	`BEGIN { x = strjoin("a", "b"); y = substr(s, 1, 2); z = strlen(s); }`,
	`BEGIN { printf("%s", inet_ntoa(&x)); }`,
	`BEGIN { x = basename(copyinstr(arg0)); y = dirname(s); }`,
	`BEGIN { x = rand() % 100; }`,
	`BEGIN { x = progenyof(1); }`,

	// Expressions.
	`BEGIN { x = a ? b : c; }`,
	`BEGIN { x = a ^^ b; }`,
	`BEGIN { x = !a || ~b && c | d ^ e & f; }`,
	`BEGIN { x = a == b != c < d <= e > f >= g; }`,
	`BEGIN { x = a << b >> c; }`,
	`BEGIN { x = a % b / c * d; }`,
	`BEGIN { x = &y; z = *p; }`,
	`BEGIN { x++; ++x; x--; --x; }`,
	`BEGIN { x <<= 2; x >>= 1; x |= 1; x &= 3; x ^= 4; x %= 5; x /= 2; x *= 3; x -= 1; x += 1; }`,
	`BEGIN { x = (x + 1) * 2; }`,
	`BEGIN { x = x ? y ? 1 : 2 : 3; }`,
	`BEGIN { a = b = c = 0; }`,
	`BEGIN { x = a, y = b; }`,
	`BEGIN { x = -a[1]->b; }`,
	`BEGIN { x = "a" == "b"; y = "a" < "b"; }`,
	`BEGIN { x = timestamp / 1000000; }`,
	`BEGIN { x = args[0]->b_flags & B_READ ? "R" : "W"; }`,
	`BEGIN { x["a", 1] = 2; }`,
	`BEGIN { trace($1); trace($$1); trace($target); trace($pid); }`,
	"BEGIN { x = `max_ncpus; y = genunix`rootvnode; }",
	`BEGIN { x = NULL; }`,
	`BEGIN { x = curthread->counter; }`,

	// Constants.
	`BEGIN { x = 'a'; y = '\n'; z = '\0'; w = 'ab'; v = '\''; }`,
	`BEGIN { s = "a\tb\\c\"d\x41\101\?\a\b\f\r\v"; }`,
	`BEGIN { x = 017 + 0x1f + 0X1F + 10u + 10l + 10ul + 10ll + 10ULL + 10lu + 10LLU; }`,
	`BEGIN { x = 0xFFFFFFFFFFFFFFFF; y = 18446744073709551615ULL; z = 0; }`,
	`BEGIN { s = ""; }`,

	// Casts, sizeof, stringof, offsetof, xlate.
	`BEGIN { x = (unsigned long long)arg0; }`,
	`BEGIN { p = (char *)arg0; }`,
	`BEGIN { x = (int64_t)arg1 * 2; }`,
	`BEGIN { s = (string)arg0; }`,
	`BEGIN { p = (struct foo *)arg0; }`,
	`BEGIN { p = (vnode_t *)arg0; }`,
	`BEGIN { p = (vnode_t)arg0; }`,
	`BEGIN { p = (const char * const *)arg0; }`,
	`BEGIN { x = ((int)y); }`,
	`BEGIN { x = (x) - 1; }`,
	`BEGIN { x = sizeof x; y = sizeof(int) * 2; z = sizeof(x) + 1; }`,
	`BEGIN { x = sizeof(struct foo); y = sizeof(uint64_t); }`,
	`BEGIN { x = stringof(arg0); y = stringof arg0; }`,
	`BEGIN { x = offsetof(struct foo, bar); y = offsetof(foo_t, baz); }`,
	`BEGIN { x = xlate<psinfo_t *>(curthread); y = xlate<struct psinfo>(p)->pr_pid; }`,

	// if/else.
	`BEGIN { if (x) y = 1; else if (z) y = 2; else { y = 3; } }`,
	`BEGIN { if (x) { } }`,
	`BEGIN { if (x) { a = 1; b = 2 } else { c = 3 } d = 4; }`,
	`BEGIN { if (x) trace(1) }`,

	// Pragmas and control lines.
	"#!/usr/sbin/dtrace -s\n#pragma D option quiet\nBEGIN { trace(1); }",
	"#pragma D option bufsize=4m\n#pragma D option aggrate=1hz\nBEGIN { }",
	"#pragma D depends_on library net.d\n#pragma D depends_on provider tcp",
	"#pragma D attributes Evolving/Evolving/ISA provider http provider",
	"#pragma D binding \"1.0\" name",
	"#pragma ident \"%Z%%M%\"\n#ident \"x\"\n#\nBEGIN { }",
	"  #pragma D option flowindent\nBEGIN { }",
	"# 1 \"foo.d\"\nBEGIN { }\n#line 20 \"bar.d\"\nEND { }",
	"/* comment */ BEGIN { /* in */ x = 1; // line\n }",
	"BEGIN { x = 1 + \\\n 2; }",

	// Declarations.
	`int x; BEGIN { x = 1; }`,
	`self int ts;`,
	`this string s;`,
	`int a[string, int];`,
	`int a[int];`,
	`char *p;`,
	`int*x;`,
	`int buf[10];`,
	`int grid[2][3];`,
	`unsigned long long total;`,
	`static int counter1;`,
	`extern int max_ncpus;`,
	`int x, *y, z[4];`,
	`uint64_t bytes[string];`,
	`inline int MAX = 100;`,
	`inline string NAME = "x";`,
	`inline int TCP_MIN_HEADER_LENGTH = 20;`,
	`inline string tcp_state_string[int32_t state] = state == 0 ? "state-closed" : "state-unknown";`,
	"typedef int foo_t;\nfoo_t x;\nBEGIN { x = (foo_t)1; }",
	"typedef struct foo { int a; char *b; } foo_t;\nfoo_t *p;",
	"typedef struct { int a; } anon_t;\nanon_t v;",
	`struct foo { int a; char *b; uint64_t c[4]; };`,
	`struct foo;`,
	`struct foo x;`,
	`union u { int i; char c[4]; };`,
	`struct bits { int a : 3; int : 5; unsigned b : 1; };`,
	`struct outer { struct inner { int x; } in; int y; };`,
	`enum colors { RED, GREEN = 5, BLUE };`,
	`enum { A, B, };`,
	"translator conninfo_t < struct conn *C > {\n\tci_local = C->laddr;\n\tci_remote = C->raddr;\n\tci_protocol = \"ipv4\";\n};",
	`translator psinfo_t < struct task_struct *T > { pr_pid = T->pid; pr_fname = stringof(T->comm); };`,
	`translator foo_t < uintptr_t p > { };`,
	"provider http {\n\tprobe request__start(httpproto_t *p) : (conninfo_t *p, http_reqinfo_t *p);\n\tprobe request__done(httpproto_t *p) : (conninfo_t *p, http_reqinfo_t *p);\n};",
	"provider myapp {\n\tprobe query__start(char *, int);\n\tprobe done(int);\n\tprobe empty();\n\tprobe none(void);\n};",
	`provider empty { };`,

	// Whole scripts.
	"#!/usr/sbin/dtrace -qs\n\n" +
		"syscall::read:entry\n/execname == $$1/\n{\n\tself->start = timestamp;\n}\n\n" +
		"syscall::read:return\n/self->start/\n{\n\t@time[probefunc] = quantize(timestamp - self->start);\n\tself->start = 0;\n}\n\n" +
		"END\n{\n\tprinta(\"%s\\n%@d\\n\", @time);\n}\n",
	"#pragma D option quiet\n\ndtrace:::BEGIN\n{\n\tprintf(\"Tracing... Hit Ctrl-C to end.\\n\");\n}\n\n" +
		"io:::start\n{\n\tstart_time[arg0] = timestamp;\n}\n\n" +
		"io:::done\n/this->start = start_time[arg0]/\n{\n\tthis->delta = (timestamp - this->start) / 1000;\n" +
		"\t@[args[1]->dev_statname, args[1]->dev_major, args[1]->dev_minor] = quantize(this->delta);\n\tstart_time[arg0] = 0;\n}\n",
	"inline int NANOSEC = 1000000000;\n\nprofile:::tick-1sec\n{\n\t@ = count();\n}\n\nEND\n{\n\tnormalize(@, NANOSEC / 1000000000);\n}\n",
}

func TestValidPrograms(t *testing.T) {
	for _, src := range validPrograms {
		prog, errs := ParseFile("t.d", []byte(src), testMacros)
		if len(errs) > 0 {
			t.Errorf("%q: unexpected errors:\n%s", src, errText(errs))
			continue
		}
		if len(prog.Decls) == 0 && strings.TrimSpace(src) != "" {
			t.Errorf("%q: no declarations", src)
		}
	}
	if len(validPrograms) < 120 {
		t.Errorf("only %d valid programs", len(validPrograms))
	}
}

func errText(errs diag.List) string {
	var lines []string
	for _, e := range errs {
		lines = append(lines, fmt.Sprintf("%d:%d %s %s", e.Pos.Line, e.Pos.Col, e.Tag, e.Msg))
	}
	return strings.Join(lines, "\n")
}

// invalidPrograms must fail with exactly the errors listed, each written
// "line:col TAG message"; a want may stop early and then matches as a
// prefix (e.g. without the message).
var invalidPrograms = []struct {
	src  string
	want []string
}{
	// Syntax.
	{`BEGIN { x = ; }`, []string{`1:13 D_SYNTAX syntax error near ";"`}},
	{`BEGIN { x = 1 + ; }`, []string{`1:17 D_SYNTAX syntax error near ";"`}},
	{`BEGIN { x = (1; }`, []string{`1:15 D_SYNTAX syntax error near ";"`}},
	{`BEGIN { f(1,); }`, []string{`1:13 D_SYNTAX syntax error near ")"`}},
	{`BEGIN { x = 1 y = 2; }`, []string{`1:15 D_SYNTAX syntax error near "y"`}},
	{`BEGIN { x = a ? b; }`, []string{`1:18 D_SYNTAX syntax error near ";"`}},
	{`BEGIN { x[] = 1; }`, []string{`1:11 D_SYNTAX syntax error near "]"`}},
	{`BEGIN { x = self.y; }`, []string{`1:17 D_SYNTAX syntax error near "."`}},
	{`BEGIN { x->; }`, []string{`1:12 D_SYNTAX syntax error near ";"`}},
	{`BEGIN { if x { } }`, []string{`1:12 D_SYNTAX syntax error near "x"`}},
	{`BEGIN { if (x) y = 1 else z = 2; }`, []string{`1:22 D_SYNTAX syntax error near "else"`}},
	{`BEGIN { { x = 1; } }`, []string{`1:9 D_SYNTAX syntax error near "{"`}},
	{`BEGIN { x = "a" "b"; }`, []string{`1:17 D_SYNTAX syntax error near "\"b\""`}},
	{`BEGIN { x = sizeof(; }`, []string{`1:20 D_SYNTAX syntax error near ";"`}},
	{`BEGIN { x = (int; }`, []string{`1:17 D_SYNTAX syntax error near ";"`}},
	{`BEGIN { x = 1 }}`, []string{`1:16 D_SYNTAX syntax error near "}"`}},
	{`BEGIN { x = 1; } ;`, []string{`1:18 D_SYNTAX syntax error near ";"`}},
	{`BEGIN, { }`, []string{`1:8 D_SYNTAX syntax error near "{"`}},
	{`{ x = 1; }`, []string{`1:1 D_SYNTAX syntax error near "{"`}},
	{`self->x = 1;`, []string{`1:6 D_SYNTAX syntax error near ">"`}},
	{`BEGIN { x = 1;`, []string{`1:15 D_SYNTAX syntax error near end of input`}},
	{`BEGIN /x { }`, []string{`1:10 D_SYNTAX syntax error near "{"`}},
	{`BEGIN /x/`, []string{`1:8 D_SYNTAX expected actions { } following probe description and predicate`}},
	// As in DTrace, a '/' followed by a name is a division.
	{"syscall::read:entry /x/\nsyscall::write:entry { }", []string{`2:8 D_SYNTAX syntax error near ":"`}},
	{`BEGIN END`, []string{`1:7 D_SYNTAX syntax error near "END"`}},
	{`int x`, []string{`1:6 D_SYNTAX syntax error near end of input`}},
	{`inline int x = ;`, []string{`1:16 D_SYNTAX syntax error near ";"`}},
	{`inline int x 3;`, []string{`1:14 D_SYNTAX syntax error near "3"`}},
	{`struct foo { int a; }`, []string{`1:22 D_SYNTAX syntax error near end of input`}},
	{`struct foo { int; };`, []string{`1:17 D_SYNTAX syntax error near ";"`}},
	{`translator foo < bar > { };`, []string{`1:22 D_SYNTAX syntax error near ">"`}},
	{`provider p { probe x(int) };`, []string{`1:27 D_SYNTAX syntax error near "}"`}},
	{`provider p { probe x(int, ...); };`, []string{`1:27 D_DECL_PROTO_VARARGS`}},
	{`counter int x;`, []string{`1:1 D_SYNTAX syntax error near "counter"`}},
	{`int;`, []string{`1:1 D_DECL_USELESS useless declaration`}},
	{`self static int x;`, []string{`1:6 D_DECL_CLASS more than one storage class specified`}},

	// Lexical errors.
	{`BEGIN { "abc }`, []string{`1:9 D_STR_NL end-of-file encountered in string literal`}},
	{"BEGIN { x = \"abc\n\"; }", []string{`1:13 D_STR_NL newline encountered in string literal`}},
	{"BEGIN { x = 'a\n'; }", []string{`1:13 D_CHR_NL newline encountered in character constant`}},
	{`BEGIN { x = ''; }`, []string{`1:13 D_CHR_NULL empty character constant`}},
	{`BEGIN { x = 'abcdefghi'; }`, []string{`1:13 D_CHR_OFLOW character constant is too long`}},
	{`BEGIN { x = 99999999999999999999; }`, []string{`1:13 D_INT_OFLOW constant 99999999999999999999 results in integer overflow`}},
	{`BEGIN { x = 0x10000000000000000; }`, []string{`1:13 D_INT_OFLOW`}},
	{`BEGIN { x = 019; }`, []string{`1:15 D_INT_DIGIT constant 019 contains invalid digit 9`}},
	{`BEGIN { x = 10abc; }`, []string{`1:15 D_INT_DIGIT constant 10abc contains invalid digit a`}},
	{`BEGIN { x = 10lul; }`, []string{`1:17 D_INT_DIGIT constant 10lul contains invalid digit l`}},
	{`BEGIN { x = 0x; }`, []string{`1:13 D_INT_DIGIT`}},
	{`BEGIN { x = 1.5; }`, []string{`1:13 D_SYNTAX floating-point constants are not permitted`}},
	{`BEGIN { x = 1e9; }`, []string{`1:13 D_SYNTAX floating-point constants are not permitted`}},
	{`BEGIN { x = "\q"; }`, []string{`1:14 D_SYNTAX invalid escape sequence "\\q"`}},
	{`BEGIN { x = "a\xg"; }`, []string{`1:15 D_SYNTAX \x used with no following hex digits`}},
	{`BEGIN { x = '\400'; }`, []string{`1:14 D_SYNTAX octal escape sequence \400 is out of range`}},
	{`/* unterminated`, []string{`1:1 D_SYNTAX end-of-file encountered before matching */`}},
	{`/* a /* b */ BEGIN { }`, []string{`1:6 D_SYNTAX /* encountered inside a comment`}},
	{`BEGIN { x = #; }`, []string{`1:13 D_SYNTAX syntax error near "#"`}},
	{`BEGIN { x = $; }`, []string{`1:13 D_SYNTAX syntax error near "$"`}},
	{"BEGIN { x = \x01; }", []string{`1:13 D_SYNTAX syntax error near "\\x01"`}},

	// Probe descriptions.
	{`a:b:c:d:e { }`, []string{`1:1 D_PDESC_INVAL invalid probe description "a:b:c:d:e": more than 4 fields`}},
	{`pid$ppid:::entry { }`, []string{`1:1 D_PDESC_INVAL invalid probe description "pid$ppid:::entry": undefined macro variable $ppid`}},
	{`syscall::$3:entry`, []string{`1:1 D_PDESC_INVAL invalid probe description "syscall::$3:entry": undefined macro variable $3`}},
	{`syscall::$:entry`, []string{`1:1 D_PDESC_INVAL`}},

	// Control lines.
	{`#pragma D option`, []string{`1:1 D_PRAGMA_MALFORM malformed #pragma option <option>=<val>`}},
	{`#pragma D option quiet flowindent`, []string{`1:1 D_PRAGMA_MALFORM superfluous arguments`}},
	{`#foo`, []string{`1:1 D_PRAGCTL_INVAL invalid control directive: #foo`}},
	{`#error stop here`, []string{`1:1 D_PRAGERR #error: stop here`}},
	{`#line abc`, []string{`1:1 D_PRAGMA_MALFORM`}},
	{"# 10 \"x.d\"\nBEGIN { x = ; }", []string{`10:13 D_SYNTAX`}},

	// Recovery: later independent errors are found, one per line.
	{"BEGIN {\n  x = 1;\n  y = ;\n}\nEND {\n  z = ;\n}", []string{`3:7 D_SYNTAX`, `6:7 D_SYNTAX`}},
	{"BEGIN { x = 1; }\nEND { y = ; }\ntick-1s { z = 1 +; }", []string{`2:11 D_SYNTAX`, `3:18 D_SYNTAX`}},
	{`BEGIN { x = ; y = ; }`, []string{`1:13 D_SYNTAX`}},
	{"BEGIN { x = ; y = 1; }\nEND { z = 'ab\n'; }", []string{`1:13 D_SYNTAX`, `2:11 D_CHR_NL`}},
	{"int x; int y\nBEGIN { z = ; }", []string{`2:1 D_SYNTAX syntax error near "BEGIN"`}},
	{"int x\nBEGIN { }\nEND { y = ; }", []string{`2:1 D_SYNTAX`, `3:11 D_SYNTAX`}},
	{"struct foo {\n  int a;\n  int b c;\n  int d;\n};\nBEGIN { x = ; }", []string{`3:9 D_SYNTAX`, `6:13 D_SYNTAX`}},
	{"BEGIN /x == / { y = ; }\nEND { z = ; }", []string{`1:13 D_SYNTAX`, `2:11 D_SYNTAX`}},
	{"BEGIN { if (x) { y = ; } z = ; }\nEND { }", []string{`1:22 D_SYNTAX`}},
	{"provider p {\n  probe a(int;\n  probe b(int);\n};\nBEGIN { x = ; }", []string{`2:14 D_SYNTAX`, `5:13 D_SYNTAX`}},
}

func TestInvalidPrograms(t *testing.T) {
	for _, tt := range invalidPrograms {
		_, errs := ParseFile("t.d", []byte(tt.src), testMacros)
		got := strings.Split(errText(errs), "\n")
		if len(errs) == 0 {
			got = nil
		}
		if !matchErrors(got, tt.want) {
			t.Errorf("%q:\ngot  %q\nwant %q", tt.src, got, tt.want)
		}
	}
	if len(invalidPrograms) < 40 {
		t.Errorf("only %d invalid programs", len(invalidPrograms))
	}
}

func matchErrors(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// TestExprTrees pins precedence, associativity and the shape of each
// kind of expression.
func TestExprTrees(t *testing.T) {
	tests := []struct{ src, want string }{
		{`a + b * c`, `(+ a (* b c))`},
		{`a * b + c`, `(+ (* a b) c)`},
		{`a - b - c`, `(- (- a b) c)`},
		{`a / b % c`, `(% (/ a b) c)`},
		{`a ^^ b && c`, `(^^ a (&& b c))`},
		{`a || b ^^ c`, `(|| a (^^ b c))`},
		{`a && b || c`, `(|| (&& a b) c)`},
		{`a | b ^ c & d`, `(| a (^ b (& c d)))`},
		{`a == b < c`, `(== a (< b c))`},
		{`a < b << c`, `(< a (<< b c))`},
		{`a << b + c`, `(<< a (+ b c))`},
		{`a & b == c`, `(& a (== b c))`},
		{`x = y = 3`, `(= x (= y 3))`},
		{`x += y -= 1`, `(+= x (-= y 1))`},
		{`a ? b : c ? d : e`, `(? a b (? c d e))`},
		{`a ? b, c : d`, `(? a (, b c) d)`},
		{`a || b ? c : d`, `(? (|| a b) c d)`},
		{`x = a ? b : c`, `(= x (? a b c))`},
		{`a, b = c`, `(, a (= b c))`},
		{`-a[1]->b`, `(- (-> (index a 1) b))`},
		{`!a.b`, `(! (. a b))`},
		{`*p++`, `(* (post++ p))`},
		{`++*p`, `(++ (* p))`},
		{`&x->y`, `(& (-> x y))`},
		{`- -a`, `(- (- a))`},
		{`~a + 1`, `(+ (~ a) 1)`},
		{`(int)x + 1`, `(+ (cast int x) 1)`},
		{`(int)-x`, `(cast int (- x))`},
		{`(char *)arg0`, `(cast char_* arg0)`},
		{`(unsigned long long)arg0`, `(cast unsigned_long_long arg0)`},
		{`(struct foo *)p`, `(cast struct_foo_* p)`},
		{`(string)arg0`, `(cast string arg0)`},
		{`(int64_t)x * 2`, `(* (cast int64_t x) 2)`},
		{`(uint64_t)(x)`, `(cast uint64_t (paren x))`},
		{`(vnode_t *)arg0`, `(cast vnode_t_* arg0)`},
		{`(foo_t)arg0`, `(cast foo_t arg0)`},
		{`(x) - 1`, `(- (paren x) 1)`},
		{`(x)`, `(paren x)`},
		{`(a + b) * c`, `(* (paren (+ a b)) c)`},
		{`(x)->y`, `(-> (paren x) y)`},
		{`(x)[1]`, `(index (paren x) 1)`},
		{`sizeof(int) * 2`, `(* (sizeof int) 2)`},
		{`sizeof(x) * 2`, `(* (sizeof (paren x)) 2)`},
		{`sizeof x + 1`, `(+ (sizeof x) 1)`},
		{`sizeof(struct foo *)`, `(sizeof struct_foo_*)`},
		{`sizeof -x`, `(sizeof (- x))`},
		{`stringof(x)`, `(stringof (paren x))`},
		{`stringof x->y`, `(stringof (-> x y))`},
		{`offsetof(struct foo, bar)`, `(offsetof struct_foo bar)`},
		{`xlate<psinfo_t *>(curthread)`, `(xlate psinfo_t_* curthread)`},
		{`xlate<struct psinfo>(p)->pr_pid`, `(-> (xlate struct_psinfo p) pr_pid)`},
		{`f()`, `(call f)`},
		{`f(a, b = 1, c ? d : e)`, `(call f a (= b 1) (? c d e))`},
		{`printf("%d\n", x)`, `(call printf "%d\n" x)`},
		{`@a[execname, pid] = count()`, `(= (index @a execname pid) (call count))`},
		{`@[probefunc] = sum(arg0)`, `(= (index @ probefunc) (call sum arg0))`},
		{`@ = count()`, `(= @ (call count))`},
		{`x["a", 1]`, `(index x "a" 1)`},
		{`a[1][2]`, `(index (index a 1) 2)`},
		{`self->ts = timestamp`, `(= self->ts timestamp)`},
		{`self->x[1]`, `(index self->x 1)`},
		{`this->x->y`, `(-> this->x y)`},
		{`timestamp - self->ts`, `(- timestamp self->ts)`},
		{`$1 + $$2 + $target`, `(+ (+ $1 $$2) $target)`},
		{`args[0]->b_bcount`, `(-> (index args 0) b_bcount)`},
		{`curpsinfo->pr_psargs`, `(-> curpsinfo pr_psargs)`},
		{`a.b.c`, `(. (. a b) c)`},
		{"`max_ncpus", "`max_ncpus"},
		{`x++ + ++y`, `(+ (post++ x) (++ y))`},
		{`x-- - --y`, `(- (post-- x) (-- y))`},
		{`a <= b >= c`, `(>= (<= a b) c)`},
		{`a != b == c`, `(== (!= a b) c)`},
		{`a >> b << c`, `(<< (>> a b) c)`},
		{`x <<= 1`, `(<<= x 1)`},
		{`'a' + 'bc'`, `(+ 'a' 'bc')`},
		{`0x1f + 017 + 10ull`, `(+ (+ 0x1f 017) 10ull)`},
	}
	for _, tt := range tests {
		x, errs := ParseExpr(tt.src)
		if len(errs) > 0 {
			t.Errorf("%s: %v", tt.src, errs)
			continue
		}
		if got := sexpr(x); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestProgramTrees pins the shape of clauses, statements and declarations.
func TestProgramTrees(t *testing.T) {
	tests := []struct{ src, want string }{
		{`BEGIN`, `(clause BEGIN{,,,BEGIN} {})`},
		{`read:entry {}`, `(clause read:entry{,,read,entry} {})`},
		{`syscall::read:entry { x = 1 }`, `(clause syscall::read:entry{syscall,,read,entry} {(= x 1)})`},
		{`fbt:mod:fn:entry`, `(clause fbt:mod:fn:entry{fbt,mod,fn,entry} {})`},
		{`profile-997`, `(clause profile-997{,,,profile-997} {})`},
		{`pid$target:libc.so.6:malloc:entry`, `(clause pid1234:libc.so.6:malloc:entry{pid1234,libc.so.6,malloc,entry} {})`},
		{`syscall::$1:entry`, `(clause syscall::read:entry{syscall,,read,entry} {})`},
		{`pid$$target::$$2:return`, `(clause pid1234::malloc:return{pid1234,,malloc,return} {})`},
		{`syscall::*read*:entry, sched:::off-cpu`, `(clause syscall::*read*:entry{syscall,,*read*,entry} sched:::off-cpu{sched,,,off-cpu} {})`},
		{`BEGIN /a / b/ { }`, `(clause BEGIN{,,,BEGIN} /(/ a b)/ {})`},
		{`BEGIN /(a) / (b)/ { }`, `(clause BEGIN{,,,BEGIN} /(/ (paren a) (paren b))/ {})`},
		{`BEGIN { ; x; }`, `(clause BEGIN{,,,BEGIN} {; x})`},
		{`BEGIN { if (a) b; else if (c) d; else { e; f } }`,
			`(clause BEGIN{,,,BEGIN} {(if a b (if c d {e f}))})`},
		{`BEGIN { this int x, y; self->z = 1 }`,
			`(clause BEGIN{,,,BEGIN} {(var this int x) (var this int y) (= self->z 1)})`},
		{"#pragma D option quiet\nBEGIN { }\n#pragma D option bufsize=4m",
			"(pragma option quiet)\n(clause BEGIN{,,,BEGIN} {})\n(pragma option bufsize=4m)"},
		{`#pragma D attributes Evolving/Evolving/ISA provider http provider`,
			`(pragma attributes Evolving/Evolving/ISA provider http provider)`},
		{`#pragma D binding "1.0" name`, `(pragma binding 1.0 name)`},
		{`#pragma once`, `(pragma  once)`},
		{`int x;`, `(var int x)`},
		{`self int ts;`, `(var self int ts)`},
		{`extern int x;`, `(var extern int x)`},
		{`int a[string, int];`, `(var int a[string,int])`},
		{`int a[vnode_t *, foo_t];`, `(var int a[vnode_t_*,foo_t])`},
		{`char *p, **q;`, "(var char_* p)\n(var char_** q)"},
		{`int buf[10], m[2][3];`, "(var int[10] buf)\n(var int[2][3] m)"},
		{`int*x;`, `(var int_* x)`},
		{`const char *const s;`, `(var const_const_char_* s)`},
		{`inline int MAX = 10 * 2;`, `(inline int MAX (* 10 2))`},
		{`inline string s[int32_t x] = x ? "a" : "b";`, `(inline string s[int32_t:x] (? x "a" "b"))`},
		{"typedef unsigned long long ull_t;\null_t total;", "(typedef unsigned_long_long ull_t)\n(var ull_t total)"},
		{`typedef struct foo { int a; } foo_t;`, "(struct foo int:a)\n(typedef struct_foo foo_t)"},
		{`struct s { int a : 3; int : 5; char *p; long l[4]; };`, `(struct s int:a/3 int/5 char_*:p long[4]:l)`},
		{`struct outer { struct inner { int x; } in; int y; };`, "(struct inner int:x)\n(struct outer struct_inner:in int:y)"},
		{`union u { int i; char c[4]; };`, `(union u int:i char[4]:c)`},
		{`struct foo;`, `(struct foo)`},
		{`enum e { A, B = 2, C };`, `(enum e A B=2 C)`},
		{`translator out_t < struct in *P > { a = P->a; b = 1; };`,
			`(translator out_t struct_in_* P (a (-> P a)) (b 1))`},
		{`provider http { probe start(httpproto_t *p) : (conninfo_t *p, http_reqinfo_t *); probe done(int); probe v(void); };`,
			`(provider http (probe start (httpproto_t_*:p) (conninfo_t_*:p http_reqinfo_t_*)) (probe done (int)) (probe v ()))`},
	}
	for _, tt := range tests {
		prog, errs := ParseFile("t.d", []byte(tt.src), testMacros)
		if len(errs) > 0 {
			t.Errorf("%q: %s", tt.src, errText(errs))
			continue
		}
		if got := progString(prog); got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestPositions checks positions, including after cpp line markers.
func TestPositions(t *testing.T) {
	src := "# 1 \"inc.d\"\nint x;\n# 40 \"main.d\"\nBEGIN\n{\n  @a[pid] = count();\n}\n"
	prog, errs := ParseFile("prog.d", []byte(src), nil)
	if len(errs) > 0 {
		t.Fatal(errText(errs))
	}
	v := prog.Decls[0].Pos()
	if v.String() != "inc.d:1:1" {
		t.Errorf("var at %s, want inc.d:1:1", v)
	}
	c := prog.Decls[1]
	if c.Pos().String() != "main.d:40:1" {
		t.Errorf("clause at %s, want main.d:40:1", c.Pos())
	}
	stmt := c.(*ast.ProbeClause).Body.Stmts[0]
	if stmt.Pos().String() != "main.d:42:3" {
		t.Errorf("statement at %s, want main.d:42:3", stmt.Pos())
	}
}

// TestRecovery pins the partial trees returned with errors: a bad
// statement, member or item is replaced by a Bad node and parsing resumes
// after it, so that later statements and clauses are kept.
func TestRecovery(t *testing.T) {
	tests := []struct{ src, errs, tree string }{
		{"BEGIN { x = ; y = 1; }\nEND { z = 2 }",
			`1:13 D_SYNTAX syntax error near ";"`,
			"(clause BEGIN{,,,BEGIN} {BADSTMT (= y 1)})\n(clause END{,,,END} {(= z 2)})"},
		{"int x\nBEGIN { a = 1 }",
			`2:1 D_SYNTAX syntax error near "BEGIN"`,
			"(var int x)\n(clause BEGIN{,,,BEGIN} {(= a 1)})"},
		{"BEGIN /x == / { y = 1; }",
			`1:13 D_SYNTAX syntax error near "/"`,
			"(clause BEGIN{,,,BEGIN} /(== x BAD)/ {(= y 1)})"},
		{"BEGIN { f(1, ; g(); }\ntick-1s { h() }",
			`1:14 D_SYNTAX syntax error near ";"`,
			"(clause BEGIN{,,,BEGIN} {BADSTMT (call g)})\n(clause tick-1s{,,,tick-1s} {(call h)})"},
		{"BEGIN { if (x) { y = ; } z = 2; }",
			`1:22 D_SYNTAX syntax error near ";"`,
			"(clause BEGIN{,,,BEGIN} {(if x {BADSTMT}) (= z 2)})"},
		{"BEGIN { if (x == ) { y = 1; } z = 2; }",
			`1:18 D_SYNTAX syntax error near ")"`,
			"(clause BEGIN{,,,BEGIN} {BADSTMT (= z 2)})"},
		{"BEGIN { this int; x = 1; }",
			`1:9 D_DECL_USELESS useless declaration`,
			"(clause BEGIN{,,,BEGIN} {(= x 1)})"},
		{"BEGIN { this int x y; z = 1; }",
			`1:20 D_SYNTAX syntax error near "y"`,
			"(clause BEGIN{,,,BEGIN} {(var this int x) BADSTMT (= z 1)})"},
		{"BEGIN { x = 1 }}\nEND { }",
			`1:16 D_SYNTAX syntax error near "}"`,
			"(clause BEGIN{,,,BEGIN} {(= x 1)})\nBADDECL\n(clause END{,,,END} {})"},
		{"struct s { int a b; int c; ; int d; };",
			`1:18 D_SYNTAX syntax error near "b"`,
			"(struct s int:a int:c int:d)"},
		{"translator t < struct s *P > { a = ; b = P->b; };\nBEGIN { }",
			`1:36 D_SYNTAX syntax error near ";"`,
			"(translator t struct_s_* P (a BAD) (b (-> P b)))\n(clause BEGIN{,,,BEGIN} {})"},
		{"provider p {\n probe a(int;\n probe b(int);\n};",
			`2:13 D_SYNTAX syntax error near ";"`,
			"(provider p (probe a (int)) (probe b (int)))"},
		{"inline int x = ;\nBEGIN { }",
			`1:16 D_SYNTAX syntax error near ";"`,
			"(inline int x BAD)\n(clause BEGIN{,,,BEGIN} {})"},
		{"BEGIN {\n#pragma D option quiet\n x = \"a\n\"; }",
			`3:6 D_STR_NL newline encountered in string literal`,
			"(clause BEGIN{,,,BEGIN} {(= x \"a\n\")})\n(pragma option quiet)"},
	}
	for _, tt := range tests {
		prog, errs := ParseFile("t.d", []byte(tt.src), nil)
		if got := errText(errs); got != tt.errs {
			t.Errorf("%q: errors\ngot  %s\nwant %s", tt.src, got, tt.errs)
		}
		if got := progString(prog); got != tt.tree {
			t.Errorf("%q: tree\ngot  %s\nwant %s", tt.src, got, tt.tree)
		}
	}
}

// TestFuncDeclarators parses C's function declarators: prototypes (taken
// as extern declarations) and pointers to functions, named and abstract.
func TestFuncDeclarators(t *testing.T) {
	for _, src := range []string{
		"int f(int);",
		"extern int f(int, const char *s, ...);",
		"int g(void);",
		"typedef void (*h_t)(int);",
		"int (*cmp)(const void *, const void *);",
		"struct ops { int (*open)(const char *, int); long n; };",
		"BEGIN { x = (int (*)(int))0; }",
	} {
		if _, errs := ParseFile("t.d", []byte(src), nil); len(errs) > 0 {
			t.Errorf("%s: %v", src, errs)
		}
	}
	for _, src := range []string{"int (*f;", "int f(int;", "int (*)(int) x;"} {
		if _, errs := ParseFile("t.d", []byte(src), nil); len(errs) == 0 {
			t.Errorf("%s: no error", src)
		}
	}
}
