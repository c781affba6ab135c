package check

import "github.com/sonde-trace/sonde/internal/d/token"

// DTrace compiles the clauses of a program in order, and a variable
// exists from the first clause that assigns it: a clause that reads it
// before that (in program order) refers to a variable not yet defined,
// unless a declaration gave it its type. (Within one clause DTrace retries
// the predicate before the actions, so either may define it.)

// realClause reports whether the checker is in a probe clause (not in a
// declaration's context).
func (c *checker) realClause() bool {
	return c.clause != nil && (c.dcl == nil || c.clause != c.dcl.dummy)
}

// defines records that the current clause assigns v.
func (c *checker) defines(v *Var) {
	if !c.realClause() {
		return
	}
	if !v.defined || c.clause.Index < v.defClause {
		v.defined, v.defClause = true, c.clause.Index
	}
}

// definedYet reports, in the final pass, a read of v at pos in a clause
// before the first one that assigns it; it returns false when it did.
func (c *checker) definedYet(v *Var, pos token.Pos) bool {
	if !c.final || v.Declared || !v.defined || !c.realClause() || c.clause.Index >= v.defClause {
		return true
	}
	switch v.Scope {
	case Global:
		if v.Assoc {
			c.errorf(pos, "D_VAR_UNDEF", "%s has not yet been declared or assigned", v.Name)
		} else {
			c.errorf(pos, "D_IDENT_UNDEF", "failed to resolve %s: unknown variable name", v.Name)
		}
	case Self, This:
		c.errorf(pos, "D_VAR_UNDEF", "%s%s has not yet been declared or assigned", scopePrefix(v.Scope), v.Name)
	default:
		return true
	}
	return false
}
