package format

import (
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

func traceString(t *testing.T, v value.Value, quiet bool) string {
	t.Helper()
	var sb strings.Builder
	if err := Trace(&sb, v, quiet); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// tst.signedkeys.d.out (cmd/dtrace/test/tst/common/aggs), first part:
// quiet trace() of 1, 2, 4 and 8-byte integers.
func TestTraceSignedQuiet(t *testing.T) {
	var sb strings.Builder
	for _, mk := range []func(int64) value.Value{i8, i16, i32, i64} {
		for _, x := range []int64{-2, -1, 0, 1, 2} {
			sb.WriteString(traceString(t, mk(x), true))
			sb.WriteString(traceString(t, str("\n"), true))
		}
		if mk(0).Size != 8 {
			sb.WriteString(traceString(t, str("\n"), true))
		}
	}
	want := "254\n255\n0\n1\n2\n\n65534\n65535\n0\n1\n2\n\n-2\n-1\n0\n1\n2\n\n-2\n-1\n0\n1\n2\n"
	diff(t, "tst.signedkeys trace", sb.String(), want)
}

// Not quiet, each record has a leading space and a width by size
// (dt_consume_cpu: " %16lld", " %8d", " %5d", " %3d"; strings "  %-33s";
// symbols "  %-50s"). The prefix and header are chew()'s in dtrace.c;
// dtrace-utils' test/unittest/aggs/tst.count_notquiet.r shows the
// "FUNCTION:NAME" column and its trailing space.
func TestTraceNotQuiet(t *testing.T) {
	tests := []struct {
		v    value.Value
		want string
	}{
		{i64(-1), "               -1"},
		{u64(1 << 63), " -9223372036854775808"},
		{i32(-1), "       -1"},
		{u32(0xffffffff), "       -1"},
		{i16(-1), " 65535"},
		{i8(-1), " 255"},
		{str("hello"), "  hello                            "},
		{str(strings.Repeat("x", 40)), "  " + strings.Repeat("x", 40)},
		{value.Value{Kind: value.Sym, Str: "vmlinux`ksys_read"}, "  vmlinux`ksys_read" + strings.Repeat(" ", 50-17)},
		{value.Value{Kind: value.Stack, Frames: []string{"vmlinux`a+0x1", "vmlinux`b+0x2"}},
			"\n              vmlinux`a+0x1\n              vmlinux`b+0x2\n"},
		{value.Value{Kind: value.UStack}, "\n"},
	}
	for _, tt := range tests {
		if got := traceString(t, tt.v, false); got != tt.want {
			t.Errorf("trace(%+v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if got := ProbeHeader(); got != "CPU     ID                    FUNCTION:NAME\n" {
		t.Errorf("ProbeHeader() = %q", got)
	}
	line := ProbePrefix(0, 1, "", "BEGIN") + traceString(t, i64(10), false) + ProbeEnd(false)
	if want := "  0      1                           :BEGIN                10\n"; line != want {
		t.Errorf("firing = %q, want %q", line, want)
	}
	if got := ProbePrefix(12, 123456, "do_sys_open", "entry"); got != " 12 123456                do_sys_open:entry " {
		t.Errorf("ProbePrefix = %q", got)
	}
	if ProbeEnd(true) != "" {
		t.Error("ProbeEnd(true) is not empty")
	}
}

// dt_print_bytes: what does not look like a string prints as a dump.
func TestTraceBytes(t *testing.T) {
	raw := value.Value{Kind: value.Bytes, Raw: []byte("hello, world\x00\x01\xff!0123")}
	want := "\n" +
		"             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n" +
		"         0: 68 65 6c 6c 6f 2c 20 77 6f 72 6c 64 00 01 ff 21  hello, world...!\n" +
		"        10: 30 31 32 33                                      0123\n"
	if got := traceString(t, raw, false); got != want {
		t.Errorf("tracemem:\n%q\nwant\n%q", got, want)
	}
	if got := traceString(t, raw, true); got != want {
		t.Errorf("tracemem quiet:\n%q\nwant\n%q", got, want)
	}
	// The empty string: the first byte is a NUL, so not a string.
	empty := str("")
	empty.Size = 4
	want = "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n" +
		"         0: 00 00 00 00                                      ....\n"
	if got := traceString(t, empty, false); got != want {
		t.Errorf("trace(\"\"):\n%q\nwant\n%q", got, want)
	}
	// A string with a NUL and then more data is not a string either.
	odd := value.Value{Kind: value.String, Str: "ab\x00c"}
	if got := traceString(t, odd, true); !strings.Contains(got, "61 62 00 63 00") {
		t.Errorf("trace(\"ab\\0c\") = %q", got)
	}
	// Printable with no NUL at all: "  %-33s" even when quiet.
	if got := string(appendBytes(nil, []byte("abc"), -33, true, false)); got != "  abc"+strings.Repeat(" ", 30) {
		t.Errorf("no NUL = %q", got)
	}
	// Tabs and newlines are printable for dt_print_bytes.
	if got := traceString(t, str("a\tb\n"), true); got != "a\tb\n" {
		t.Errorf("trace(\"a\\tb\\n\") = %q", got)
	}
}
