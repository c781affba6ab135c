package codegen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// checkValidPrograms returns the valid programs of package check's tests
// (the validPrograms list of its check_test.go), so that this package's
// tests and fuzz target start from them without a copy.
func checkValidPrograms(tb testing.TB) []string {
	tb.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../d/check/check_test.go", nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "validPrograms" || len(vs.Values) != 1 {
			return true
		}
		ast.Inspect(vs.Values[0], func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil {
					out = append(out, s)
				}
			case *ast.BinaryExpr: // "a" + "b"
				out = append(out, concat(x))
				return false
			}
			return true
		})
		return false
	})
	if len(out) < 80 {
		tb.Fatalf("found %d valid programs in package check's tests", len(out))
	}
	return out
}

func concat(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.BasicLit:
		s, _ := strconv.Unquote(x.Value)
		return s
	case *ast.BinaryExpr:
		return concat(x.X) + concat(x.Y)
	}
	return ""
}

// FuzzCompile checks that no program the checker accepts makes the code
// generator panic (an error is fine), and that a generated plan keeps the
// promises checkPlan lists.
func FuzzCompile(f *testing.F) {
	for _, src := range programs {
		f.Add(src)
	}
	for _, src := range checkValidPrograms(f) {
		f.Add(src)
	}
	for _, tt := range refused {
		f.Add(tt.src)
	}
	for _, src := range xlatePrograms {
		f.Add(src)
	}
	f.Add(`proc:::exec-success { printf("%s %d\n", curpsinfo->pr_psargs, curlwpsinfo->pr_lwpid); }`)
	f.Fuzz(func(t *testing.T, src string) {
		p, err := compileSource(src, true)
		if err != nil {
			return
		}
		if err := checkPlan(p); err != nil {
			t.Fatal(err)
		}
	})
}
