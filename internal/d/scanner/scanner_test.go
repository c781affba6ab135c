package scanner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/d/token"
)

// scanAll scans src in expression context and returns its tokens, one
// word each (operators and keywords as spelled, others as KIND(lit)), and
// its errors as "line:col TAG message".
func scanAll(src string) (toks, errs []string) {
	var s Scanner
	s.Init("t.d", []byte(src), func(pos token.Pos, tag, msg string) {
		errs = append(errs, fmt.Sprintf("%d:%d %s %s", pos.Line, pos.Col, tag, msg))
	}, nil)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return toks, errs
		}
		toks = append(toks, tokWord(tok, lit))
	}
}

func tokWord(tok token.Kind, lit string) string {
	switch tok {
	case token.IDENT, token.INT, token.CHAR, token.STRING, token.MACRO, token.AGG,
		token.PROBEDESC, token.ILLEGAL:
		return fmt.Sprintf("%s(%s)", kindName[tok], lit)
	}
	return tok.String()
}

var kindName = map[token.Kind]string{
	token.IDENT: "IDENT", token.INT: "INT", token.CHAR: "CHAR", token.STRING: "STRING",
	token.MACRO: "MACRO", token.AGG: "AGG", token.PROBEDESC: "PDESC", token.ILLEGAL: "ILLEGAL",
}

func TestScan(t *testing.T) {
	tests := []struct{ src, want string }{
		{``, ``},
		{"  \t\r\n\f\v ", ``},
		{`x`, `IDENT(x)`},
		{`_x1 execname`, `IDENT(_x1) IDENT(execname)`},
		{"genunix`rootvnode `max_ncpus", "IDENT(genunix`rootvnode) IDENT(`max_ncpus)"},
		{`self this sizeof stringof offsetof xlate`, `self this sizeof stringof offsetof xlate`},
		{`int char string struct union enum typedef inline translator provider probe`,
			`int char string struct union enum typedef inline translator provider probe`},
		{`if else unsigned signed long short void float double const volatile`,
			`if else unsigned signed long short void float double const volatile`},
		{`0 17 017 0x1f 0X1F 10u 10U 10l 10ul 10LL 10ull 10ULL 10lu`,
			`INT(0) INT(17) INT(017) INT(0x1f) INT(0X1F) INT(10u) INT(10U) INT(10l) INT(10ul) INT(10LL) INT(10ull) INT(10ULL) INT(10lu)`},
		{`'a' '\n' '\0' 'ab' '\''`, `CHAR('a') CHAR('\n') CHAR('\0') CHAR('ab') CHAR('\'')`},
		{`"" "a" "a\"b" "\\"`, `STRING("") STRING("a") STRING("a\"b") STRING("\\")`},
		{`"a" "b"`, `STRING("a") STRING("b")`},
		{`$1 $$1 $target $$pid $10`, `MACRO($1) MACRO($$1) MACRO($target) MACRO($$pid) MACRO($10)`},
		{`@ @a @num_1 @[x]`, `AGG(@) AGG(@a) AGG(@num_1) AGG(@) [ IDENT(x) ]`},
		{`+ - * / % & | ^ << >>`, `+ - * / % & | ^ << >>`},
		{`+= -= *= /= %= &= |= ^= <<= >>=`, `+= -= *= /= %= &= |= ^= <<= >>=`},
		{`&& || ^^ ++ -- == != < <= > >= = ! ~`, `&& || ^^ ++ -- == != < <= > >= = ! ~`},
		{`( ) [ ] { } , ; : ? . -> ...`, `( ) [ ] { } , ; : ? . -> ...`},
		{`a->b.c`, `IDENT(a) -> IDENT(b) . IDENT(c)`},
		{`x+++y`, `IDENT(x) ++ + IDENT(y)`},
		{`a<<=b>>c`, `IDENT(a) <<= IDENT(b) >> IDENT(c)`},
		{`-1`, `- INT(1)`},
		{`a[1].b`, `IDENT(a) [ INT(1) ] . IDENT(b)`},
		{"a /* c */ b // d\nc", `IDENT(a) IDENT(b) IDENT(c)`},
		{"a /* multi\nline */ b", `IDENT(a) IDENT(b)`},
		{"a \\\n b", `IDENT(a) IDENT(b)`},
		{"#!/usr/sbin/dtrace -s\nx", `IDENT(x)`},
		{"#pragma D option quiet\nx", `IDENT(x)`},
		{"x\n  #ident \"y\"\nz", `IDENT(x) IDENT(z)`},
		{"x # y", `IDENT(x) ILLEGAL(#) IDENT(y)`},
		{`syscall::read:entry`, `IDENT(syscall) : : IDENT(read) : IDENT(entry)`},
	}
	for _, tt := range tests {
		toks, errs := scanAll(tt.src)
		if got := strings.Join(toks, " "); got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
		if len(errs) > 0 && !strings.Contains(tt.want, "ILLEGAL") {
			t.Errorf("%q: unexpected errors %q", tt.src, errs)
		}
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`"abc`, []string{`1:1 D_STR_NL end-of-file encountered in string literal`}},
		{"x \"ab\ncd", []string{`1:3 D_STR_NL newline encountered in string literal`}},
		{"x \"ab\ncd\" y", []string{`1:3 D_STR_NL newline encountered in string literal`}},
		{"'a\n", []string{`1:1 D_CHR_NL newline encountered in character constant`}},
		{`''`, []string{`1:1 D_CHR_NULL empty character constant`}},
		{`'abcdefghi'`, []string{`1:1 D_CHR_OFLOW character constant is too long`}},
		{`'abcdefgh'`, nil},
		{`18446744073709551615`, nil},
		{`18446744073709551616`, []string{`1:1 D_INT_OFLOW constant 18446744073709551616 results in integer overflow`}},
		{`0x1ffffffffffffffff`, []string{`1:1 D_INT_OFLOW constant 0x1ffffffffffffffff results in integer overflow`}},
		{`x 09`, []string{`1:4 D_INT_DIGIT constant 09 contains invalid digit 9`}},
		{`12ab`, []string{`1:3 D_INT_DIGIT constant 12ab contains invalid digit a`}},
		{`1lll`, []string{`1:4 D_INT_DIGIT constant 1lll contains invalid digit l`}},
		{`1uu`, []string{`1:3 D_INT_DIGIT constant 1uu contains invalid digit u`}},
		{`0x`, []string{`1:1 D_INT_DIGIT constant 0x contains no hexadecimal digits`}},
		{`1.5`, []string{`1:1 D_SYNTAX floating-point constants are not permitted`}},
		{`.5`, []string{`1:1 D_SYNTAX floating-point constants are not permitted`}},
		{`2e10`, []string{`1:1 D_SYNTAX floating-point constants are not permitted`}},
		{`"\q"`, []string{`1:2 D_SYNTAX invalid escape sequence "\\q"`}},
		{`"ab\x"`, []string{`1:4 D_SYNTAX \x used with no following hex digits`}},
		{`'\777'`, []string{`1:2 D_SYNTAX octal escape sequence \777 is out of range`}},
		{`/* x`, []string{`1:1 D_SYNTAX end-of-file encountered before matching */`}},
		{`/* /* */`, []string{`1:4 D_SYNTAX /* encountered inside a comment`}},
		{`a $ b`, []string{`1:3 D_SYNTAX syntax error near "$"`}},
		{"\x00", []string{`1:1 D_SYNTAX syntax error near "\\x00"`}},
		{"é", []string{`1:1 D_SYNTAX syntax error near "\\xc3"`, `1:2 D_SYNTAX syntax error near "\\xa9"`}},
		{`#define X 1`, []string{`1:1 D_PRAGCTL_INVAL invalid control directive: #define`}},
		{`#error "no" way`, []string{`1:1 D_PRAGERR #error: no way`}},
		{`#pragma error bad`, []string{`1:1 D_PRAGERR #error: bad`}},
		{`#line x`, []string{`1:1 D_PRAGMA_MALFORM malformed #line <line> [ ["file"] state ]`}},
		{`# 12 13`, []string{`1:1 D_PRAGMA_MALFORM malformed #line <line> [ ["file"] state ]`}},
	}
	for _, tt := range tests {
		_, errs := scanAll(tt.src)
		if strings.Join(errs, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%q:\ngot  %q\nwant %q", tt.src, errs, tt.want)
		}
	}
}

func TestScanProbeDesc(t *testing.T) {
	isDecl := func(w string) bool {
		return map[string]bool{"int": true, "self": true, "struct": true, "foo_t": true}[w]
	}
	tests := []struct{ src, want string }{
		{`BEGIN`, `PDESC(BEGIN)`},
		{`syscall::read:entry { x }`, `PDESC(syscall::read:entry) { IDENT(x) }`},
		{`syscall::open*:entry/x/`, `PDESC(syscall::open*:entry) / IDENT(x) /`},
		{`pid$target:libc.so.6:malloc:entry`, `PDESC(pid$target:libc.so.6:malloc:entry)`},
		{`a:b,c:d`, `PDESC(a:b) , PDESC(c:d)`},
		{`profile-997,tick-1sec`, `PDESC(profile-997) , PDESC(tick-1sec)`},
		{`profile-997 tick-1sec`, `PDESC(profile-997) PDESC(tick-1sec)`},
		{`python*:::function-entry`, `PDESC(python*:::function-entry)`},
		{`fbt::[a-c]?x!:entry`, `PDESC(fbt::[a-c]?x!:entry)`},
		{`int x;`, `int IDENT(x) ;`},
		{`int*x;`, `int * IDENT(x) ;`},
		{`int* { }`, `int * { }`},
		{`int:::entry`, `PDESC(int:::entry)`},
		{`*int`, `PDESC(*int)`},
		{`integer`, `PDESC(integer)`},
		{`self int ts;`, `self int IDENT(ts) ;`},
		{`foo_t *p;`, `IDENT(foo_t) * IDENT(p) ;`},
		{`struct foo`, `struct IDENT(foo)`},
		{"/* c */ BEGIN // d\n{", `PDESC(BEGIN) {`},
		{`; "s"`, `; STRING("s")`},
	}
	for _, tt := range tests {
		var s Scanner
		s.Init("t.d", []byte(tt.src), nil, nil)
		// As the parser does: outer context for the first token and
		// after a probe description or a comma between two.
		var toks []string
		outer := true
		for {
			var tok token.Kind
			var lit string
			if outer {
				_, tok, lit = s.ScanProbeDesc(isDecl)
			} else {
				_, tok, lit = s.Scan()
			}
			if tok == token.EOF {
				break
			}
			toks = append(toks, tokWord(tok, lit))
			outer = tok == token.PROBEDESC || tok == token.COMMA && outer
		}
		if got := strings.Join(toks, " "); got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestPositions checks lines and columns, line continuations and cpp line
// markers (which name the line that follows them).
func TestPositions(t *testing.T) {
	src := "a\n  b /* x\ny */ c\n# 10 \"inc.d\" 1\nd\n#line 3\n\te \\\nf\n# 0 \"<stdin>\"\ng"
	want := []string{"t.d:1:1", "t.d:2:3", "t.d:3:6", "inc.d:10:1", "inc.d:3:2", "inc.d:4:1", "<stdin>:1:1"}
	var s Scanner
	s.Init("t.d", []byte(src), func(pos token.Pos, tag, msg string) {
		t.Errorf("%s: %s", pos, msg)
	}, nil)
	var got []string
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		got = append(got, pos.String())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestPragmas(t *testing.T) {
	src := "#pragma D option quiet\n" +
		"  #pragma D option bufsize=4m /* comment */\n" +
		"#pragma D depends_on library net.d\n" +
		"#pragma D attributes Evolving/Evolving/ISA provider http provider\n" +
		"#pragma D binding \"1.0\" name\n" +
		"# pragma D option flowindent // comment\n" +
		"#pragma once\n" +
		"#pragma ident \"@(#)x.d\"\n" +
		"#pragma D\n" +
		"x"
	want := []string{
		"1:1 option [quiet]",
		"2:3 option [bufsize=4m]",
		"3:1 depends_on [library net.d]",
		"4:1 attributes [Evolving/Evolving/ISA provider http provider]",
		"5:1 binding [1.0 name]",
		"6:1 option [flowindent]",
		"7:1  [once]",
	}
	var got []string
	var s Scanner
	s.Init("t.d", []byte(src), func(pos token.Pos, tag, msg string) {
		t.Errorf("%s: %s", pos, msg)
	}, func(pos token.Pos, kind string, args []string) {
		got = append(got, fmt.Sprintf("%d:%d %s %v", pos.Line, pos.Col, kind, args))
	})
	pos, tok, _ := s.Scan()
	if tok != token.IDENT || pos.Line != 10 {
		t.Errorf("token after pragmas: %v at %s", tok, pos)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPeekAndRewind(t *testing.T) {
	var s Scanner
	errs := 0
	s.Init("t.d", []byte("a 'xy' b\n c"), func(token.Pos, string, string) { errs++ }, nil)
	s.Scan()
	peeked := s.Peek(5)
	if len(peeked) != 4 || peeked[0].Kind != token.CHAR || peeked[3].Kind != token.EOF {
		t.Fatalf("Peek = %v", peeked)
	}
	pos, tok, lit := s.Scan()
	if tok != token.CHAR || lit != "'xy'" || pos.Col != 3 {
		t.Errorf("after Peek: %v %q at %s", tok, lit, pos)
	}
	_, _, _ = s.Scan()
	cpos, _, _ := s.Scan()
	s.Rewind(pos)
	if p2, _, lit := s.Scan(); p2 != pos || lit != "'xy'" {
		t.Errorf("after Rewind: %q at %s", lit, p2)
	}
	s.Scan()
	if p3, _, lit := s.Scan(); p3 != cpos || lit != "c" {
		t.Errorf("after Rewind, c: %q at %s, want %s", lit, p3, cpos)
	}
	if errs != 0 {
		t.Errorf("%d errors", errs)
	}
}

func TestIntValue(t *testing.T) {
	tests := []struct {
		lit      string
		val      uint64
		unsigned bool
		long     int
	}{
		{"0", 0, false, 0},
		{"123", 123, false, 0},
		{"017", 15, false, 0},
		{"0x1f", 31, false, 0},
		{"0XFF", 255, false, 0},
		{"10u", 10, true, 0},
		{"10L", 10, false, 1},
		{"10ul", 10, true, 1},
		{"10lu", 10, true, 1},
		{"10ll", 10, false, 2},
		{"10ULL", 10, true, 2},
		{"10llu", 10, true, 2},
		{"0xffffffffffffffff", 1<<64 - 1, false, 0},
	}
	for _, tt := range tests {
		v, u, l, err := IntValue(tt.lit)
		if err != nil || v != tt.val || u != tt.unsigned || l != tt.long {
			t.Errorf("IntValue(%s) = %d %v %d %v", tt.lit, v, u, l, err)
		}
	}
}

func TestCharAndStringValue(t *testing.T) {
	chars := map[string]uint64{
		`'a'`: 'a', `'\n'`: '\n', `'\0'`: 0, `'\''`: '\'', `'\x41'`: 0x41, `'\101'`: 0101,
		`'ab'`: 'a'<<8 | 'b', `'\377'`: 255, `'"'`: '"',
	}
	for lit, want := range chars {
		if v, err := CharValue(lit); err != nil || v != want {
			t.Errorf("CharValue(%s) = %d, %v; want %d", lit, v, err, want)
		}
	}
	strs := map[string]string{
		`""`: "", `"abc"`: "abc", `"a\tb"`: "a\tb", `"\\"`: `\`, `"\""`: `"`,
		`"\x41\101\0"`: "AA\x00", `"\a\b\f\n\r\t\v\?\'"`: "\a\b\f\n\r\t\v?'",
		`"%d\n"`: "%d\n", `"é"`: "é",
	}
	for lit, want := range strs {
		if v, err := StringValue(lit); err != nil || v != want {
			t.Errorf("StringValue(%s) = %q, %v; want %q", lit, v, err, want)
		}
	}
}
