package stats

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
)

func TestParseRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in, canon string
		want      Spec
	}{
		{"syscall.ops", "syscall.ops", Spec{Statistic: "syscall.ops"}},
		{"syscall.ops[execname=postgres][name]", "syscall.ops[execname=postgres][name]",
			Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: "postgres"}}, Breakdowns: []string{"name"}}},
		{"syscall.ops[name][execname=postgres]", "syscall.ops[execname=postgres][name]",
			Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: "postgres"}}, Breakdowns: []string{"name"}}},
		{`syscall.ops[execname="a b"]`, `syscall.ops[execname="a b"]`,
			Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: "a b"}}}},
		{`syscall.ops[execname="a\"b\\c"]`, `syscall.ops[execname="a\"b\\c"]`,
			Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: `a"b\c`}}}},
		{`syscall.ops[execname="plain"]`, `syscall.ops[execname=plain]`,
			Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: "plain"}}}},
		{`syscall.ops[execname=""]`, `syscall.ops[execname=""]`,
			Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: ""}}}},
		{`io.ops[device=vda][op=write][execname][pid]`, `io.ops[device=vda][op=write][execname][pid]`,
			Spec{Statistic: "io.ops", Filters: []analytics.Filter{{Breakdown: "device", Value: "vda"}, {Breakdown: "op", Value: "write"}},
				Breakdowns: []string{"execname", "pid"}}},
		{`x[a=b=c]`, `x[a=b=c]`, Spec{Statistic: "x", Filters: []analytics.Filter{{Breakdown: "a", Value: "b=c"}}}},
		{`x[a=é]`, `x[a=é]`, Spec{Statistic: "x", Filters: []analytics.Filter{{Breakdown: "a", Value: "é"}}}},
		{`cpu.utilization[mode][mode=user]`, `cpu.utilization[mode=user][mode]`,
			Spec{Statistic: "cpu.utilization", Filters: []analytics.Filter{{Breakdown: "mode", Value: "user"}}, Breakdowns: []string{"mode"}}},
	} {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(*s, tc.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, *s, tc.want)
		}
		if got := s.String(); got != tc.canon {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.canon)
		}
		again, err := Parse(s.String())
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Errorf("Parse(%q) = %+v, %v: not a round trip of %+v", s.String(), again, err, s)
		}
	}
}

// TestStringQuotes: any value survives String and Parse, however odd.
func TestStringQuotes(t *testing.T) {
	for _, v := range []string{"", " ", "]", "[", `"`, `\`, `a"]`, `"x"`, "a=b", "x y", `\\"`, "ü"} {
		s := &Spec{Statistic: "syscall.ops", Filters: []analytics.Filter{{Breakdown: "execname", Value: v}}}
		got, err := Parse(s.String())
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Errorf("value %q: %q parses as %+v, %v", v, s.String(), got, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		byte int
		msg  string
	}{
		{"", 1, "empty name"},
		{"[execname]", 1, "a statistic's name is expected"},
		{"syscall.ops[", 13, "expected a breakdown's name"},
		{"syscall.ops[execname", 21, "missing ']'"},
		{"syscall.ops[execname=dd", 24, "missing ']'"},
		{"syscall.ops[execname=]", 22, "empty value"},
		{"syscall.ops[execname=a b]", 23, "' ' in a value: quote the value"},
		{"syscall.ops[execname=a\"b]", 23, "'\"' in a value"},
		{"syscall.ops[1x]", 13, "expected a breakdown's name, found '1'"},
		{"syscall.ops[name]x", 18, "expected '['"},
		{"syscall.ops[name][name]", 19, `breakdown "name" given twice`},
		{"syscall.ops[pid=1][pid=2]", 20, `filter on "pid" given twice`},
		{"syscall.ops[name!=x]", 17, "expected ']' or '=' after \"name\", found '!'"},
		{`syscall.ops[execname="dd]`, 26, "unterminated quoted value (opened at byte 22)"},
		{`syscall.ops[execname="dd"x]`, 26, "expected ']' after the quoted value"},
		{`syscall.ops[execname="dd"`, 26, "missing ']'"},
		{`syscall.ops[execname="d\n"]`, 24, `invalid escape \n`},
		{"syscall.ops[execname=\"a\x01\"]", 24, "control character byte 0x01"},
		{"sys call", 4, "expected '['"},
		{strings.Repeat("a", MaxNameLen+1), MaxNameLen + 1, "longer than"},
	} {
		_, err := Parse(tc.in)
		var se *SpecError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a SpecError", tc.in, err)
			continue
		}
		if se.Byte != tc.byte || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%q): byte %d %q, want byte %d %q", tc.in, se.Byte, se.Msg, tc.byte, tc.msg)
		}
		var ae *analytics.Error
		if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, tc.msg) {
			t.Errorf("Parse(%q): as analytics.Error %+v", tc.in, ae)
		}
	}
}
