package check

// fds.go checks fds[n], DTrace's array of the current process's open
// files: the fileinfo_t of descriptor n, its members read from the
// kernel's struct file where they are used (probe.FdsFileinfoT).

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/probe"
)

// isFds reports whether b names fds[] rather than a variable of the
// program's.
func (c *checker) isFds(b *ast.Ident) bool {
	return b.Name == "fds" && c.lookupVar(Global, "fds", b.NamePos, false) == nil && c.inlines[b.Name] == nil
}

// fdsIndex checks fds[n].
func (c *checker) fdsIndex(x *ast.IndexExpr) *Type {
	if len(x.Indices) != 1 {
		c.errorf(x.Lbrack, "D_PROTO_LEN", "fds[ ] prototype mismatch: %d args passed, 1 expected", len(x.Indices))
		return nil
	}
	if it := c.expr(x.Indices[0]); it != nil && it.Kind != Int {
		c.errorf(x.Indices[0].Pos(), "D_OP_INT", "operator [ ] requires an index of integral type, not \"%s\"", it)
		return nil
	}
	return &Type{Kind: Struct, Name: "fileinfo_t", Src: probe.FdsFileinfoT}
}
