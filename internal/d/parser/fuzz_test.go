package parser

import (
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no input makes the parser panic, and that what it
// returns keeps its promises: sorted errors, at most one per line, each
// with a position and a tag, and a tree whose nodes can all be visited.
func FuzzParse(f *testing.F) {
	for _, src := range validPrograms {
		f.Add(src)
	}
	for _, tt := range invalidPrograms {
		f.Add(tt.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, errs := ParseFile("f.d", []byte(src), testMacros)
		if prog == nil {
			t.Fatal("nil program")
		}
		for i, e := range errs {
			if !e.Pos.IsValid() || e.Pos.Col < 1 || e.Tag == "" || e.Msg == "" {
				t.Fatalf("bad error %#v", e)
			}
			if !utf8.ValidString(e.Msg) && utf8.ValidString(src) {
				t.Fatalf("invalid UTF-8 in message %q", e.Msg)
			}
			if i > 0 && errs[i-1].Pos.File == e.Pos.File && errs[i-1].Pos.Line >= e.Pos.Line {
				t.Fatalf("errors out of order or two on a line: %v, %v", errs[i-1], e)
			}
		}
		for _, d := range prog.Decls {
			_ = d.Pos()
		}
		_ = progString(prog)
		x, _ := ParseExpr(src)
		_ = sexpr(x)
	})
}
