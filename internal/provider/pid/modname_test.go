package pid

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/sym"
)

func TestModuleMatches(t *testing.T) {
	libc := sym.Object{Mod: "libc.so.6"}
	ld := sym.Object{Mod: "ld-linux-x86-64.so.2"}
	main := sym.Object{Mod: "prog", Main: true}
	sonic := sym.Object{Mod: "libfoo.sonic"}
	bare := sym.Object{Mod: "libbar.so"}
	for _, tt := range []struct {
		pattern string
		o       sym.Object
		want    bool
	}{
		{"libc.so.6", libc, true},
		{"libc.so", libc, true},
		{"libc", libc, true},
		{"libc.so.*", libc, true},
		{"", libc, true},
		{"libc.so.7", libc, false},
		{"lib", libc, false},
		{"libc.s", libc, false},
		{"ld-linux-x86-64.so", ld, true},
		{"ld-linux-x86-64", ld, true},
		{"a.out", main, true},
		{"prog", main, true},
		{"a.out", libc, false},
		{"libfoo", sonic, false},
		{"libfoo.sonic", sonic, true},
		{"libbar", bare, true},
		{"libbar.so", bare, true},
	} {
		if got := moduleMatches(tt.pattern, tt.o); got != tt.want {
			t.Errorf("moduleMatches(%q, %s) = %v, want %v", tt.pattern, tt.o.Mod, got, tt.want)
		}
	}
}
