package codegen

// ktype.go compiles what the kernel's types (check/ktypes.go) add: the
// offset of a member of a named kernel struct is not a constant of the
// plan but a relocation (plan.FieldOffset) that the runtime resolves from
// the BTF of the kernel it loads the program into, as CO-RE does.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/plan"
)

// addFieldOffset adds member f's offset to the address in R0 (R1 is
// clobbered when the offset is relocated).
func (g *gen) addFieldOffset(f *check.Field) {
	if f.Kernel != "" {
		g.emit(
			plan.WithFieldOffset(asm.LoadImm(asm.R1, int64(f.Offset), asm.DWord), f.Kernel, f.Name),
			asm.Add.Reg(asm.R0, asm.R1),
		)
		return
	}
	if f.Offset != 0 {
		g.emit(asm.Add.Imm(asm.R0, int32(f.Offset)))
	}
}

// stringofPtr compiles stringof(p) for a pointer p: the NUL-terminated
// string at p (in kernel memory, or user memory for a userland pointer)
// into scratch[off:off+n]; a bad address is a fault, as DTrace reports
// it. It reports false when e is not a pointer.
func (g *gen) stringofPtr(e ast.Expr, off, n int) bool {
	t := g.typeOf(e)
	if t.Kind != check.Pointer {
		return false
	}
	g.zero(off, n)
	g.expr(e)
	g.readStr(off, n, t.User, e.Pos())
	return true
}
