package format

import (
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // %Y tests use America/Los_Angeles as DTrace's do

	"github.com/sonde-trace/sonde/internal/value"
)

// tst.ints.d and tst.ints.d.out (cmd/dtrace/test/tst/common/printf): the
// size and signedness of the argument decide how %d, %u, %x and %o print.
func TestPrintfInts(t *testing.T) {
	const x = 0x1234567890abcdef
	var sb strings.Builder
	type arg struct {
		f string
		v value.Value
	}
	sized := func(signed bool) []value.Value {
		if signed {
			return vals(i8(x&0xff), i16(x&0xffff), i32(x&0xffffffff), i64(x))
		}
		return vals(u8(x&0xff), u16(x&0xffff), u32(x&0xffffffff), u64(x))
	}
	var args []arg
	add := func(f string, vs []value.Value) {
		for i, v := range vs {
			ff := f + "\n"
			if i == 0 {
				ff = "\n" + ff
			}
			args = append(args, arg{ff, v})
		}
	}
	add("%d", sized(true))
	add("%d", sized(false))
	add("%u", sized(true))
	add("%u", sized(false))
	add("%x", sized(false))
	add("%x", sized(true))
	add("%o", sized(false))
	add("%o", sized(true))
	add("%p", vals(u64(0x12345678), u64(0x90abcdef), u64(0x67890abc)))
	for _, a := range args {
		sb.WriteString(sprintf(t, a.f, a.v))
	}
	sb.WriteString("\n") // dtrace(1)'s newline at exit
	want := "\n-17\n-12817\n-1867788817\n1311768467294899695\n\n239\n52719\n2427178479\n1311768467294899695\n\n239\n52719\n2427178479\n1311768467294899695\n\n239\n52719\n2427178479\n1311768467294899695\n\nef\ncdef\n90abcdef\n1234567890abcdef\n\nef\ncdef\n90abcdef\n1234567890abcdef\n\n357\n146757\n22052746757\n110642547422052746757\n\n357\n146757\n22052746757\n110642547422052746757\n\n12345678\n90abcdef\n67890abc\n\n"
	diff(t, "tst.ints", sb.String(), want)
}

// tst.flags.d.out, tst.widths.d.out and tst.wp.d.out
// (cmd/dtrace/test/tst/common/printf).
func TestPrintfFlagsWidths(t *testing.T) {
	var sb strings.Builder
	w := func(f string, a ...value.Value) { sb.WriteString(sprintf(t, f, a...)) }
	w("\n")
	w("# %#8x\n", i32(0x123))
	w("0 %08x\n", i32(0x123))
	w("- %-8x\n", i32(0x123))
	w("+ %+8d\n", i32(123))
	w("  % 8d\n", i32(123))
	diff(t, "tst.flags", sb.String()+"\n", "\n#    0x123\n0 00000123\n- 123     \n+     +123\n       123\n\n")

	sb.Reset()
	w("\n")
	for _, f := range []string{"%0d\n", "%1d\n", "%2d\n", "%3d\n", "%4d\n", "%5d\n"} {
		w(f, i32(1))
	}
	for x := 0; x < 6; x++ {
		w("%*d\n", i32(int64(x)), i32(1))
	}
	diff(t, "tst.widths", sb.String()+"\n", "\n1\n1\n 1\n  1\n   1\n    1\n1\n1\n 1\n  1\n   1\n    1\n\n")

	sb.Reset()
	w("\n")
	for _, f := range []string{"%0.0s\n", "%1.1s\n", "%2.2s\n", "%3.3s\n", "%4.4s\n", "%5.5s\n", "%6.6s\n", "%7.7s\n", "%8.8s\n", "%9.9s\n"} {
		w(f, str("hello"))
	}
	for x := 0; x < 10; x++ {
		w("%*.*s\n", i32(int64(x)), i32(int64(x)), str("hello"))
	}
	diff(t, "tst.wp", sb.String()+"\n", "\nhello\nh\nhe\nhel\nhell\nhello\n hello\n  hello\n   hello\n    hello\nhello\nh\nhe\nhel\nhell\nhello\n hello\n  hello\n   hello\n    hello\n\n")
}

// tst.printY.ksh and its .out (cmd/dtrace/test/tst/common/printf): %Y in
// US/Pacific.
func TestPrintfY(t *testing.T) {
	loc, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePrintf("%Y\n%Y\n%Y")
	if err != nil {
		t.Fatal(err)
	}
	p.Location = loc
	got, err := p.Sprint(vals(u64(0), u64(1062609821*1e9), u64(0x7fffffff*1e9)))
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "tst.printY", got+"\n", "1969 Dec 31 16:00:00\n2003 Sep  3 10:23:41\n2038 Jan 18 19:14:07\n")

	p, _ = ParsePrintf("%T")
	p.Location = loc
	got, _ = p.Sprint(vals(u64(1062609821 * 1e9)))
	diff(t, "%T", got, "Wed, 03 Sep 2003 10:23:41 PDT")
}

// One conversion at a time. Expected texts follow dt_printf.c: the libc
// conversion DTrace builds for each (pfprint_sint, pfprint_uint, ...),
// checked against glibc's printf.
func TestPrintfConversions(t *testing.T) {
	stack := value.Value{Kind: value.Stack, Frames: []string{"vmlinux`do_sys_open+0x1a", "vmlinux`__x64_sys_openat+0x20"}}
	sym := value.Value{Kind: value.Sym, Str: "vmlinux`do_sys_open+0x1a", Addr: 0xffffffff81234567}
	usym := value.Value{Kind: value.USym, Str: "libc.so.6`malloc+0x12", Addr: 0x7f0012345678}
	mod := value.Value{Kind: value.Mod, Str: "vmlinux", Addr: 0xffffffff81234567}
	tests := []struct {
		f    string
		args []value.Value
		want string
	}{
		{"%d", vals(i32(-1)), "-1"},
		{"%d", vals(i64(-1)), "-1"},
		{"%i", vals(u8(0xff)), "-1"}, // pfprint_sint sign-extends whatever the type
		{"%u", vals(i32(-1)), "4294967295"},
		{"%u", vals(i64(-1)), "18446744073709551615"},
		{"%x", vals(i32(-1)), "ffffffff"}, // the argument's size decides
		{"%x", vals(i64(-1)), "ffffffffffffffff"},
		{"%X", vals(i64(0xabc)), "ABC"},
		{"%#o", vals(i32(8)), "010"},
		{"%#x", vals(i32(0)), "0"},
		{"%.3d", vals(i32(7)), "007"},
		{"%.0d", vals(i32(0)), "0"}, // DTrace drops a zero precision
		{"%8.3d|", vals(i32(-7)), "    -007|"},
		{"%-5d|", vals(i32(42)), "42   |"},
		{"%05d", vals(i32(-42)), "-0042"},
		{"%+d % d", vals(i32(5), i32(5)), "+5  5"},
		{"%+u", vals(u32(5)), "5"},
		{"%ld %lld %lu %lx", vals(i64(-2), i64(-3), u64(4), u64(255)), "-2 -3 4 ff"},
		{"%hd %hx %hu", vals(i16(-2), i16(-2), u16(65535)), "-2 fffe 65535"},
		{"%hhd %hhx %hhu", vals(i8(-2), i8(-2), u8(200)), "-2 fe 200"},
		{"%c%c%c", vals(i8('a'), i32('b'), i8('c')), "abc"},
		{"[%3c][%-3c]", vals(i8('x'), i8('y')), "[  x][y  ]"},
		{"%C", vals(i8('\n')), "\\n"},
		{"%C%C", vals(i8(1), i8('A')), "\\001A"},
		{"%s|", vals(str("hello")), "hello|"},
		{"%10s|%-10s|", vals(str("hi"), str("hi")), "        hi|hi        |"},
		{"%.2s|", vals(str("hello")), "he|"},
		{"%-*s|", vals(i32(6), str("ab")), "ab    |"},
		{"%*s|", vals(i32(-6), str("ab")), "ab    |"}, // a negative '*' width left-justifies
		{"%.*s|", vals(i32(-1), str("ab")), "ab|"},    // a negative precision is ignored
		{"%S", vals(str("a\tb\"c\\d\x7f")), "a\\tb\\\"c\\\\d\\177"},
		{"%p", vals(u64(0xffff8880deadbeef)), "ffff8880deadbeef"}, // "%llx": no 0x (tst.ints.d.out)
		{"%a", vals(sym), "vmlinux`do_sys_open+0x1a"},
		{"%-30a|", vals(sym), "vmlinux`do_sys_open+0x1a      |"},
		{"%a", vals(u64(0xffffffff81000000)), "0xffffffff81000000"},
		{"%a", vals(mod), "vmlinux"},
		{"%A", vals(usym), "libc.so.6`malloc+0x12"},
		{"%k", vals(stack), "\nvmlinux`do_sys_open+0x1a\nvmlinux`__x64_sys_openat+0x20\n"},
		{"%-4k", vals(stack), "\n    vmlinux`do_sys_open+0x1a\n    vmlinux`__x64_sys_openat+0x20\n"},
		{"%30k", vals(stack), "\n      vmlinux`do_sys_open+0x1a\n vmlinux`__x64_sys_openat+0x20\n"},
		{"%*k", vals(i32(-2), stack), "\n  vmlinux`do_sys_open+0x1a\n  vmlinux`__x64_sys_openat+0x20\n"},
		{"%*k", vals(i32(-30), stack), "\n" + strings.Repeat(" ", 30) + "vmlinux`do_sys_open+0x1a      \n" + strings.Repeat(" ", 30) + "vmlinux`__x64_sys_openat+0x20 \n"},
		{"%e", vals(i32(1)), "1.000000e+00"},
		{"%E", vals(i64(123456)), "1.234560E+05"},
		{"%f", vals(i32(-3)), "-3.000000"},
		{"%.2f", vals(u64(1 << 63)), "9223372036854775808.00"},
		{"%g %g %G", vals(i32(100000), i32(1000000), i64(1e15)), "100000 1e+06 1E+15"},
		{"%10.3e|", vals(i32(-1234)), "-1.234e+03|"},
		{"100%%", nil, "100%"},
		{"%5.2@d", nil, ""}, // not reached: see TestPrintfAggConvError
		{"", nil, ""},
		{"plain text", nil, "plain text"},
	}
	for _, tt := range tests {
		if strings.Contains(tt.f, "@") {
			continue
		}
		if got := sprintf(t, tt.f, tt.args...); got != tt.want {
			t.Errorf("printf(%q) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// %S of a string with its record size escapes the NUL padding too, as
// pfprint_estr escapes the whole record (strchr2esc(addr, size)); without
// a known size only the string is escaped.
func TestPrintfSRecord(t *testing.T) {
	v := str("hi")
	v.Size = 5
	if got := sprintf(t, "%S", v); got != `hi\0\0\0` {
		t.Errorf("%%S = %q", got)
	}
	if got := sprintf(t, "%S", str("hi")); got != `hi` {
		t.Errorf("%%S = %q", got)
	}
}

func TestPrintfAggConvError(t *testing.T) {
	p, err := ParsePrintf("%@d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Sprint(nil); err == nil {
		t.Errorf("%%@d in printf(): no error")
	}
	p, _ = ParsePrintf("%d %d")
	if _, err := p.Sprint(vals(i32(1))); err == nil {
		t.Error("too few arguments: no error")
	}
	p, _ = ParsePrintf("%d")
	if _, err := p.Sprint(vals(str("x"))); err == nil {
		t.Errorf("%%d of a string: no error")
	}
}

// fakeNames names addresses as a consumer's symbol tables would.
type fakeNames struct{ target bool }

func (fakeNames) KernelAddr(a uint64) string { return fmt.Sprintf("vmlinux`k+0x%x", a&0xff) }
func (n fakeNames) UserAddr(a uint64) (string, bool) {
	return fmt.Sprintf("prog`u+0x%x", a&0xff), n.target
}

// %a and %A of an integer print the name the consumer gives it
// (dtrace_addr2str, dtrace_uaddr2str), with the width applied to the name;
// without a process for %A, or without names, the raw address.
func TestPrintfAddrNames(t *testing.T) {
	tests := []struct {
		f     string
		names value.Namer
		want  string
	}{
		{"%a|", fakeNames{}, "vmlinux`k+0x12|"},
		{"%-16a|", fakeNames{}, "vmlinux`k+0x12  |"},
		{"%16a|", fakeNames{}, "  vmlinux`k+0x12|"},
		{"%A|", fakeNames{target: true}, "prog`u+0x12|"},
		{"%A|", fakeNames{}, "0xffffffff81000012|"},
		{"%a|", nil, "0xffffffff81000012|"},
	}
	for _, tt := range tests {
		p, err := ParsePrintf(tt.f)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := p.FormatNamed(&b, vals(u64(0xffffffff81000012)), tt.names); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("printf(%q) = %q, want %q", tt.f, b.String(), tt.want)
		}
	}
}
