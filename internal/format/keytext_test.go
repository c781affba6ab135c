package format

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

func TestKeyText(t *testing.T) {
	cases := []struct {
		k    value.Value
		want string
	}{
		{value.StringValue("dd\x00junk"), "dd"},
		{value.IntValue(-3), "-3"},
		{value.Value{Kind: value.Int, Int: -1, Size: 4, Signed: true}, "-1"},
		{value.Value{Kind: value.Stack, Frames: []string{"leaf+0x10", "mid+0x4", "root"}}, "root;mid;leaf"},
		{value.Value{Kind: value.Sym, Str: "vfs_read"}, "vfs_read"},
	}
	for _, c := range cases {
		if got := KeyText(c.k); got != c.want {
			t.Errorf("KeyText(%+v) = %q, want %q", c.k, got, c.want)
		}
	}
}
