package parser

import (
	"fmt"
	"strings"

	"github.com/sonde-trace/sonde/internal/d/ast"
)

// This file prints syntax trees as compact S-expressions, so that tests
// can pin precedence, associativity and the shape of declarations:
//
//	a + b * c            (+ a (* b c))
//	-a[1]->b             (- (-> (index a 1) b))
//	(int)x + 1           (+ (cast int x) 1)
//
// Unary operators print with one operand, binary with two; postfix ++ and
// -- print as post++ and post--. It touches every field a later pass may
// rely on, so the fuzz target uses it to find nil nodes.

func sexpr(x ast.Expr) string {
	var b strings.Builder
	writeExpr(&b, x)
	return b.String()
}

func writeExpr(b *strings.Builder, x ast.Expr) {
	switch x := x.(type) {
	case nil:
		b.WriteString("NIL")
	case *ast.BadExpr:
		b.WriteString("BAD")
	case *ast.Ident:
		b.WriteString(x.Name)
	case *ast.IntLit:
		b.WriteString(x.Raw)
	case *ast.StringLit:
		b.WriteString(x.Raw)
	case *ast.MacroVar:
		b.WriteString(map[bool]string{false: "$", true: "$$"}[x.Quoted] + x.Name)
	case *ast.AggVar:
		b.WriteString("@" + x.Name)
	case *ast.SelfVar:
		b.WriteString("self->" + x.Name)
	case *ast.ThisVar:
		b.WriteString("this->" + x.Name)
	case *ast.ParenExpr:
		list(b, "paren", x.X)
	case *ast.UnaryExpr:
		list(b, x.Op.String(), x.X)
	case *ast.PostfixExpr:
		list(b, "post"+x.Op.String(), x.X)
	case *ast.BinaryExpr:
		list(b, x.Op.String(), x.X, x.Y)
	case *ast.AssignExpr:
		list(b, x.Op.String(), x.X, x.Y)
	case *ast.CondExpr:
		list(b, "?", x.Cond, x.X, x.Y)
	case *ast.CallExpr:
		list(b, "call", append([]ast.Expr{x.Fun}, x.Args...)...)
	case *ast.IndexExpr:
		list(b, "index", append([]ast.Expr{x.X}, x.Indices...)...)
	case *ast.SelectorExpr:
		op := "."
		if x.Arrow {
			op = "->"
		}
		fmt.Fprintf(b, "(%s ", op)
		writeExpr(b, x.X)
		fmt.Fprintf(b, " %s)", x.Sel)
	default:
		writeTypedExpr(b, x)
	}
}

// writeTypedExpr prints the expressions that carry a type name.
func writeTypedExpr(b *strings.Builder, x ast.Expr) {
	switch x := x.(type) {
	case *ast.CastExpr:
		fmt.Fprintf(b, "(cast %s ", typeString(x.Type))
		writeExpr(b, x.X)
		b.WriteString(")")
	case *ast.SizeofExpr:
		if x.Type != nil {
			fmt.Fprintf(b, "(sizeof %s)", typeString(x.Type))
		} else {
			list(b, "sizeof", x.X)
		}
	case *ast.StringofExpr:
		list(b, "stringof", x.X)
	case *ast.OffsetofExpr:
		fmt.Fprintf(b, "(offsetof %s %s)", typeString(x.Type), x.Member)
	case *ast.XlateExpr:
		fmt.Fprintf(b, "(xlate %s ", typeString(x.Type))
		writeExpr(b, x.X)
		b.WriteString(")")
	default:
		fmt.Fprintf(b, "?%T", x)
	}
}

func list(b *strings.Builder, head string, xs ...ast.Expr) {
	b.WriteString("(" + head)
	for _, x := range xs {
		b.WriteString(" ")
		writeExpr(b, x)
	}
	b.WriteString(")")
}

// typeString spells a type name on one line, e.g. "const struct foo *[4]".
func typeString(t *ast.TypeName) string {
	if t == nil {
		return "NOTYPE"
	}
	s := t.Spelling()
	for _, d := range t.Dims {
		if d == nil {
			s += "[]"
		} else {
			s += "[" + sexpr(d) + "]"
		}
	}
	return strings.ReplaceAll(s, " ", "_")
}

func stmtString(s ast.Stmt) string {
	switch s := s.(type) {
	case *ast.BadStmt:
		return "BADSTMT"
	case *ast.EmptyStmt:
		return ";"
	case *ast.ExprStmt:
		return sexpr(s.X)
	case *ast.BlockStmt:
		return blockString(s)
	case *ast.IfStmt:
		out := "(if " + sexpr(s.Cond) + " " + stmtString(s.Then)
		if s.Else != nil {
			out += " " + stmtString(s.Else)
		}
		return out + ")"
	case *ast.DeclStmt:
		return declString(s.Decl)
	}
	return fmt.Sprintf("?%T", s)
}

func blockString(b *ast.BlockStmt) string {
	var parts []string
	for _, s := range b.Stmts {
		parts = append(parts, stmtString(s))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// progString prints a program one declaration per line.
func progString(p *ast.Program) string {
	var lines []string
	for _, d := range p.Decls {
		lines = append(lines, declString(d))
	}
	return strings.Join(lines, "\n")
}

func declString(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.BadDecl:
		return "BADDECL"
	case *ast.ProbeClause:
		return clauseString(d)
	case *ast.PragmaDecl:
		return "(pragma " + strings.Join(append([]string{d.Kind}, d.Args...), " ") + ")"
	case *ast.InlineDecl:
		return fmt.Sprintf("(inline %s %s%s %s)", typeString(d.Type), d.Name, keysString(d.Params), sexpr(d.Value))
	case *ast.VarDecl:
		return varString(d)
	case *ast.TypedefDecl:
		return fmt.Sprintf("(typedef %s %s)", typeString(d.Type), d.Name)
	}
	return typeDeclString(d)
}

func typeDeclString(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.StructDecl:
		kw := map[bool]string{false: "struct", true: "union"}[d.Union]
		return fmt.Sprintf("(%s %s%s)", kw, d.Name, fieldsString(d.Fields))
	case *ast.EnumDecl:
		s := "(enum " + d.Name
		for i, n := range d.Names {
			s += " " + n
			if d.Values[i] != nil {
				s += "=" + sexpr(d.Values[i])
			}
		}
		return s + ")"
	case *ast.TranslatorDecl:
		s := fmt.Sprintf("(translator %s %s %s", typeString(d.Output), typeString(d.Input), d.Param)
		for _, m := range d.Members {
			s += fmt.Sprintf(" (%s %s)", m.Name, sexpr(m.Value))
		}
		return s + ")"
	case *ast.ProviderDecl:
		s := "(provider " + d.Name
		for _, pr := range d.Probes {
			s += fmt.Sprintf(" (probe %s (%s)", pr.Name, strings.TrimSpace(fieldsString(pr.Args)))
			if pr.XlateArgs != nil {
				s += fmt.Sprintf(" (%s)", strings.TrimSpace(fieldsString(pr.XlateArgs)))
			}
			s += ")"
		}
		return s + ")"
	}
	return fmt.Sprintf("?%T", d)
}

func clauseString(c *ast.ProbeClause) string {
	var probes []string
	for _, p := range c.Probes {
		probes = append(probes, fmt.Sprintf("%s{%s,%s,%s,%s}", p.Text, p.Provider, p.Module, p.Function, p.Name))
	}
	s := "(clause " + strings.Join(probes, " ")
	if c.Pred != nil {
		s += " /" + sexpr(c.Pred) + "/"
	}
	return s + " " + blockString(c.Body) + ")"
}

func varString(d *ast.VarDecl) string {
	s := "(var"
	for _, w := range []string{d.Scope, d.Class} {
		if w != "" {
			s += " " + w
		}
	}
	s += " " + typeString(d.Type) + " " + d.Name
	if d.KeyTypes != nil {
		var ks []string
		for _, k := range d.KeyTypes {
			ks = append(ks, typeString(k))
		}
		s += "[" + strings.Join(ks, ",") + "]"
	}
	return s + ")"
}

func keysString(fs []*ast.Field) string {
	if fs == nil {
		return ""
	}
	return "[" + strings.TrimSpace(fieldsString(fs)) + "]"
}

func fieldsString(fs []*ast.Field) string {
	s := ""
	for _, f := range fs {
		s += " " + typeString(f.Type)
		if f.Name != "" {
			s += ":" + f.Name
		}
		if f.Bits != nil {
			s += "/" + sexpr(f.Bits)
		}
	}
	return s
}
