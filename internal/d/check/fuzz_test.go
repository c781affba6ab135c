package check_test

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/parser"
)

// FuzzCheck checks that no input makes the checker panic, whatever the
// parser made of it (partial trees with Bad nodes included), and that for
// a program that parsed the errors keep their promises: each has a
// position, a tag and a message, sorted, at most one per line; and
// checking is deterministic.
func FuzzCheck(f *testing.F) {
	for _, src := range validPrograms {
		f.Add(src, uint8(0))
	}
	for _, tt := range invalidPrograms {
		f.Add(tt.src, uint8(3))
	}
	f.Fuzz(func(t *testing.T, src string, flags uint8) {
		cfg := check.Config{
			Resolver:    fakeResolver,
			Macros:      testMacros,
			Destructive: flags&1 != 0,
			ZeroMatches: flags&2 != 0,
			StrSize:     int(flags >> 2 * 8),
		}
		prog, perrs := parser.ParseFile("f.d", []byte(src), &parser.Options{Macros: testMacros})
		_, errs := check.Check(progsOf(prog), cfg)
		if len(perrs) > 0 {
			// A partial tree must not make the checker panic; what it
			// reports about one is not promised (compile stops first).
			return
		}
		for i, e := range errs {
			if !e.Pos.IsValid() || e.Tag == "" || e.Msg == "" {
				t.Fatalf("bad error %#v", e)
			}
			if i > 0 && errs[i-1].Pos.Line >= e.Pos.Line {
				t.Fatalf("errors out of order or two on a line: %v, %v", errs[i-1], e)
			}
		}
		_, again := check.Check(progsOf(prog), cfg)
		if errText(errs) != errText(again) {
			t.Fatalf("checking twice differs:\n%s\n---\n%s", errText(errs), errText(again))
		}
	})
}
