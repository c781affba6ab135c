package ast

// Inspect walks the expression tree rooted at e in depth-first order,
// calling f for each node; if f returns false the node's children are
// skipped.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch x := e.(type) {
	case *ParenExpr:
		Inspect(x.X, f)
	case *UnaryExpr:
		Inspect(x.X, f)
	case *PostfixExpr:
		Inspect(x.X, f)
	case *BinaryExpr:
		Inspect(x.X, f)
		Inspect(x.Y, f)
	case *AssignExpr:
		Inspect(x.X, f)
		Inspect(x.Y, f)
	case *CondExpr:
		Inspect(x.Cond, f)
		Inspect(x.X, f)
		Inspect(x.Y, f)
	case *CallExpr:
		Inspect(x.Fun, f)
		for _, a := range x.Args {
			Inspect(a, f)
		}
	case *IndexExpr:
		Inspect(x.X, f)
		for _, a := range x.Indices {
			Inspect(a, f)
		}
	case *SelectorExpr:
		Inspect(x.X, f)
	case *CastExpr:
		Inspect(x.X, f)
	case *SizeofExpr:
		Inspect(x.X, f)
	case *StringofExpr:
		Inspect(x.X, f)
	case *XlateExpr:
		Inspect(x.X, f)
	}
}

// Unparen strips any parentheses around e.
func Unparen(e Expr) Expr {
	for {
		p, ok := e.(*ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
