package check

import "github.com/sonde-trace/sonde/internal/d/ast"

// stmtKind classifies a clause's statement for the rules on the order of
// speculate(), commit() and the actions around them.
type stmtKind int

const (
	stmtOther       stmtKind = iota // an expression: records nothing
	stmtData                        // records data (trace, printf, exit, ...)
	stmtAgg                         // an aggregation
	stmtSpeculate                   // speculate()
	stmtCommit                      // commit()
	stmtDiscard                     // discard(): records nothing
	stmtDestructive                 // system(), raise(), copyout(), ...
)

// recordingSubrs are the functions sonde accepts as values that, used as
// a statement, record data as DTrace's actions of the same name do.
var recordingSubrs = map[string]bool{
	"stack": true, "ustack": true, "jstack": true,
	"sym": true, "func": true, "usym": true, "ufunc": true,
	"mod": true, "umod": true, "uaddr": true,
}

func (c *checker) stmtKind(s ast.Stmt) (stmtKind, bool) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return stmtOther, false
	}
	switch x := ast.Unparen(es.X).(type) {
	case *ast.AssignExpr:
		l := ast.Unparen(x.X)
		if ix, ok := l.(*ast.IndexExpr); ok {
			l = ast.Unparen(ix.X)
		}
		if _, ok := l.(*ast.AggVar); ok {
			return stmtAgg, true
		}
	case *ast.CallExpr:
		id, ok := x.Fun.(*ast.Ident)
		if !ok {
			break
		}
		b := LookupBuiltin(id.Name)
		switch {
		case b == nil:
		case b.Name == "speculate":
			return stmtSpeculate, true
		case b.Name == "commit":
			return stmtCommit, true
		case b.Name == "discard":
			return stmtDiscard, true
		case b.Destructive:
			return stmtDestructive, true
		case b.Kind == Action || recordingSubrs[b.Name]:
			return stmtData, true
		}
	}
	return stmtOther, true
}

// specOrder applies dt_stmt_append's rules to the statements of a clause,
// in order: speculate() comes first and once, commit() once and before any
// data, and no aggregation, destructive action or exit() follows
// speculate(). The first violation is reported at the statement that
// completes it, as DTrace does. Statements under if are left alone (each
// branch is its own sequence).
func (c *checker) specOrder(list []ast.Stmt) {
	var commit, spec, data bool
	var walk func([]ast.Stmt) bool
	walk = func(list []ast.Stmt) bool {
		for _, s := range list {
			if b, ok := s.(*ast.BlockStmt); ok {
				if !walk(b.Stmts) {
					return false
				}
				continue
			}
			k, ok := c.stmtKind(s)
			if !ok {
				continue
			}
			pos := s.(*ast.ExprStmt).X.Pos()
			fail := func(tag, msg string) bool {
				c.errorf(pos, tag, "%s", msg)
				return false
			}
			switch k {
			case stmtCommit:
				if commit {
					return fail("D_COMM_COMM", "commit( ) may not follow commit( )")
				}
				if data {
					return fail("D_COMM_DREC", "commit( ) may not follow data-recording action(s)")
				}
				commit = true
				continue
			case stmtSpeculate:
				switch {
				case spec:
					return fail("D_SPEC_SPEC", "speculate( ) may not follow speculate( )")
				case commit:
					return fail("D_SPEC_COMM", "speculate( ) may not follow commit( )")
				case data:
					return fail("D_SPEC_DREC", "speculate( ) may not follow data-recording action(s)")
				}
				spec = true
				continue
			case stmtAgg:
				if spec {
					return fail("D_AGG_SPEC", "aggregating actions may not follow speculate( )")
				}
				if commit {
					return fail("D_AGG_COMM", "aggregating actions may not follow commit( )")
				}
				data = true
				continue
			}
			if spec {
				if k == stmtDestructive {
					return fail("D_ACT_SPEC", "destructive actions may not follow speculate( )")
				}
				if isExit(s) {
					return fail("D_EXIT_SPEC", "exit( ) may not follow speculate( )")
				}
			}
			if k != stmtData {
				continue
			}
			if commit {
				return fail("D_DREC_COMM", "data-recording actions may not follow commit( )")
			}
			if !spec {
				data = true
			}
		}
		return true
	}
	walk(list)
}

func isExit(s ast.Stmt) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	x, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := x.Fun.(*ast.Ident)
	return ok && id.Name == "exit"
}
