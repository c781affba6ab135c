package printf

import (
	"errors"
	"testing"
)

// Parse errors. Messages from dtrace-utils' test/unittest/printf
// err.D_SYNTAX.badconv{1,2,3}.r and dt_printf_create in dt_printf.c.
func TestParseErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"%3$d", "format conversion #1 uses unsupported positional format (%n$)"}, // err.D_SYNTAX.badconv1.r
		{"%3", "format conversion #1 name expected before end of format string"},  // err.D_SYNTAX.badconv2.r
		{"%Z", "format conversion #1 is undefined: %Z"},                           // err.D_SYNTAX.badconv3.r
		{"%d %", "format conversion #2 name expected before end of format string"},
		{"%d %q", "format conversion #2 is undefined: %q"},
		{"%lq", "format conversion #1 is undefined: %lq"},
		{"%lllld", "format conversion #1 is undefined: %lllld"},
		{"%**d", "format conversion #1 has more than one '*' specified for the output precision"},
		{"%.**d", "format conversion #1 has more than one '*' specified for the output precision"},
		{"%1.2.3d", "format conversion #1 has more than one '.' specified"},
		{"%-%", "format conversion #1 cannot be combined with other format flags: %%"},
		{"%5%", "format conversion #1 cannot be combined with other format flags: %%"},
		{"%%%", "format conversion #2 name expected before end of format string"},
		{"%ls", "format conversion #1 is undefined: %ls"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want an *Error", tt.src, err)
			continue
		}
		if e.Msg != tt.msg || e.Tag != "D_SYNTAX" {
			t.Errorf("Parse(%q) = [%s] %q, want [D_SYNTAX] %q", tt.src, e.Tag, e.Msg, tt.msg)
		}
	}
}

func TestParseConvs(t *testing.T) {
	tests := []struct {
		src  string
		want []Conv
	}{
		{"x=%d\n", []Conv{{Index: 1, Offset: 2, Verb: 'd', Name: "d", Accepts: ArgInt, Proto: protoXint}}},
		{"%-08lld", []Conv{{Index: 1, Verb: 'd', Name: "lld", Size: "ll", Flags: "0", Width: 8, Accepts: ArgInt, Proto: "long long"}}},
		{"%0-8d", []Conv{{Index: 1, Verb: 'd', Name: "d", Flags: "-", Width: 8, Accepts: ArgInt, Proto: protoXint}}},
		{"%*.*s", []Conv{{Index: 1, Verb: 's', Name: "s", WidthStar: true, PrecStar: true, Accepts: ArgString, Proto: protoCstr}}},
		{"%5.2@d", []Conv{{Index: 1, Verb: 'd', Name: "d", Width: 5, Prec: 2, Agg: true, Accepts: ArgAgg, Proto: protoXint}}},
		{"%?p", []Conv{{Index: 1, Verb: 'p', Name: "p", Width: 16, Accepts: ArgPointer | ArgInt, Proto: protoAddr}}},
		{"%# +'x", []Conv{{Index: 1, Verb: 'x', Name: "x", Flags: "#+' ", Accepts: ArgInt, Proto: protoXint}}},
		{"%%%k", []Conv{{Index: 1, Verb: '%', Name: "%", Proto: "void"}, {Index: 2, Offset: 2, Verb: 'k', Name: "k", Accepts: ArgStack, Proto: "stack"}}},
		{"%hhx", []Conv{{Index: 1, Verb: 'x', Name: "hhx", Size: "hh", Accepts: ArgInt, Proto: "char"}}},
		{"%Y %a %A %c", []Conv{
			{Index: 1, Verb: 'Y', Name: "Y", Accepts: ArgInt64, Proto: "int64_t"},
			{Index: 2, Offset: 3, Verb: 'a', Name: "a", Accepts: ArgPointer | ArgInt | ArgSymAddr, Proto: protoAddr},
			{Index: 3, Offset: 6, Verb: 'A', Name: "A", Accepts: ArgUSymAddr | ArgPointer | ArgInt, Proto: protoUaddr},
			{Index: 4, Offset: 9, Verb: 'c', Name: "c", Accepts: ArgSmallInt, Proto: protoCsi},
		}},
	}
	for _, tt := range tests {
		p, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		if len(p.Convs) != len(tt.want) {
			t.Fatalf("Parse(%q): %d conversions, want %d", tt.src, len(p.Convs), len(tt.want))
		}
		for i, c := range p.Convs {
			c.Ofmt, c.Print = 0, 0
			if c != tt.want[i] {
				t.Errorf("Parse(%q).Convs[%d] = %+v, want %+v", tt.src, i, c, tt.want[i])
			}
		}
	}
	p, _ := Parse("%*.*d%@d%%")
	if got := []int{p.Convs[0].Args(), p.Convs[1].Args(), p.Convs[2].Args()}; got[0] != 3 || got[1] != 0 || got[2] != 0 {
		t.Errorf("Args() = %v, want [3 0 0]", got)
	}
	if n := p.NumArgs(); n != 3 {
		t.Errorf("NumArgs() = %d, want 3", n)
	}
}
