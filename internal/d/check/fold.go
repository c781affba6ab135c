package check

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/token"
)

// foldTyped evaluates a binary operation on integer constants as C (and
// dt_node_op2) does with the operands' types: the usual arithmetic
// conversions, then division, remainder, right shift and comparisons
// unsigned when the type is, and the result cut to the type's size.
func (c *checker) foldTyped(x *ast.BinaryExpr, a, b *Type) (int64, bool) {
	kl, ok1 := c.info.Consts[x.X]
	kr, ok2 := c.info.Consts[x.Y]
	if !ok1 || !ok2 || kl.IsStr || kr.IsStr || a.Kind != Int || b.Kind != Int {
		return 0, false
	}
	l, r := kl.Int, kr.Int
	t := arith(a, b)
	switch x.Op {
	case token.LAND, token.LOR, token.LXOR, token.COMMA:
		if x.Op == token.COMMA {
			return r, true
		}
		return foldBinary(x.Op, l, r)
	case token.SHL, token.SHR:
		t = promote(a)
		l = truncate(l, t)
		if x.Op == token.SHR && !t.Signed {
			return truncate(int64(uint64(l)>>uint64(r)), t), true
		}
		v, _ := foldBinary(x.Op, l, r)
		return truncate(v, t), true
	}
	l, r = truncate(l, t), truncate(r, t)
	if t.Signed {
		v, ok := foldBinary(x.Op, l, r)
		return truncate(v, t), ok
	}
	ul, ur := uint64(l), uint64(r)
	switch x.Op {
	case token.QUO, token.REM:
		if ur == 0 {
			return 0, false
		}
		if x.Op == token.QUO {
			return truncate(int64(ul/ur), t), true
		}
		return truncate(int64(ul%ur), t), true
	case token.LSS:
		return b2i(ul < ur), true
	case token.LEQ:
		return b2i(ul <= ur), true
	case token.GTR:
		return b2i(ul > ur), true
	case token.GEQ:
		return b2i(ul >= ur), true
	}
	v, ok := foldBinary(x.Op, l, r)
	if ok && x.Op != token.EQL && x.Op != token.NEQ {
		v = truncate(v, t)
	}
	return v, ok
}
