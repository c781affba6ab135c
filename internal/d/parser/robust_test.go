package parser

import (
	"strings"
	"testing"
)

// TestPathologicalInputs guards against inputs that once were (or could
// be) super-linear: a long line of '#' made the start-of-line check for
// control lines quadratic. Each input must parse without panicking; a
// super-linear regression shows up as the package's test timeout, not as
// a timing assertion (tests never measure time).
func TestPathologicalInputs(t *testing.T) {
	n := 20000
	inputs := map[string]string{
		"hashes":   "BEGIN { x = " + strings.Repeat("#", n) + " }",
		"parens":   "BEGIN { x = " + strings.Repeat("(", n) + " }",
		"casts":    "BEGIN { x = " + strings.Repeat("(a*", n/3) + " }",
		"braces":   "BEGIN " + strings.Repeat("{", n),
		"ifs":      "BEGIN { " + strings.Repeat("if (x) ", n/7) + "y; }",
		"structs":  strings.Repeat("struct a { ", n/11),
		"index":    "BEGIN { x" + strings.Repeat("[", n) + " }",
		"unary":    "BEGIN { x = " + strings.Repeat("-", n) + "y; }",
		"semis":    strings.Repeat(";", n),
		"commas":   "BEGIN " + strings.Repeat(",", n),
		"quotes":   strings.Repeat("\"\n", n/2),
		"comments": strings.Repeat("/*", n/2),
		"pdescs":   strings.Repeat("a:b ", n/4),
		"decls":    strings.Repeat("int ", n/4),
		"lines":    strings.Repeat("x\n", n/2),
		"cond":     "BEGIN { x = " + strings.Repeat("a ? ", n/4) + " }",
		"assign":   "BEGIN { x = " + strings.Repeat("a = ", n/4) + " }",
		"errors":   strings.Repeat("BEGIN { x = ; }\n", n/16),
		"pragma":   strings.Repeat("#pragma D option quiet\n", n/23),
		"pdcomma":  "a" + strings.Repeat(",a", n/2),
		"pred":     "a /" + strings.Repeat("x /", n/3),
		"spaces#":  strings.Repeat("  #", n/3),
	}
	for name, src := range inputs {
		_ = name
		ParseFile("p.d", []byte(src), nil)
		ParseExpr(src)
	}
}
