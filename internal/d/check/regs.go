package check

// regs.go defines the uregs[] register names (the guide's "User Process
// Tracing": uregs[R_PC]...). Their numbers are Oracle's Linux DTrace's
// for x86-64 (libdtrace/i386/regs.d): 0 to 20 are the slots of the
// kernel's struct pt_regs in order, 21 to 24 the segment registers
// pt_regs does not hold, and from 25 the i386 names, R_EBX... R_ESP, which
// DTrace maps onto the 64-bit registers; R_PC, R_SP, R_FP, R_PS, R_R0 and
// R_R1 are the portable aliases.

import (
	"github.com/sonde-trace/sonde/internal/d/ast"
)

// regNames are the uregs[] indices.
var regNames = map[string]int64{
	"R_R15": 0, "R_R14": 1, "R_R13": 2, "R_R12": 3, "R_RBP": 4, "R_RBX": 5, "R_R11": 6, "R_R10": 7,
	"R_R9": 8, "R_R8": 9, "R_RAX": 10, "R_RCX": 11, "R_RDX": 12, "R_RSI": 13, "R_RDI": 14,
	"R_ERR": 15, "R_RIP": 16, "R_CS": 17, "R_RFL": 18, "R_RSP": 19, "R_SS": 20,
	"R_DS": 21, "R_ES": 22, "R_FS": 23, "R_GS": 24, "R_TRAPNO": 25,
	"R_EBX": 25, "R_ECX": 26, "R_EDX": 27, "R_ESI": 28, "R_EDI": 29, "R_EBP": 30, "R_EAX": 31,
	"R_EIP": 37, "R_EFL": 39, "R_ESP": 40,
	"R_PC": 37, "R_FP": 30, "R_SP": 40, "R_PS": 39, "R_R0": 31, "R_R1": 25,
}

// UregSlot returns the struct pt_regs slot (8-byte words from its start)
// that uregs[i] reads, or -1 for a register x86-64's pt_regs does not
// hold (the segment registers other than CS and SS), which reads 0.
func UregSlot(i int64) int {
	switch {
	case i >= 0 && i <= 20:
		return int(i)
	case i >= 21 && i <= 24:
		return -1
	}
	// the i386 struct pt_regs order, from 25: bx cx dx si di bp ax ds es
	// fs gs orig_ax ip cs flags sp ss
	i386 := [...]int{5, 11, 12, 13, 14, 4, 10, -1, -1, -1, -1, 15, 16, 17, 18, 19, 20}
	if i >= 25 && i < 25+int64(len(i386)) {
		return i386[i-25]
	}
	return -2
}

// MaxUreg is the highest uregs[] index.
const MaxUreg = 25 + 16

func init() {
	for n, v := range regNames {
		predefined[n] = v
	}
}

// uregsIndex checks uregs[i]: one constant index naming a register.
func (c *checker) uregsIndex(x *ast.IndexExpr, id *ast.Ident) *Type {
	c.info.Builtins[id] = LookupBuiltinVar("uregs")
	if len(x.Indices) != 1 {
		c.errorf(x.Lbrack, "D_PROTO_LEN", "uregs[ ] prototype mismatch: %d args passed, 1 expected", len(x.Indices))
		return nil
	}
	c.expr(x.Indices[0])
	n, ok := c.constInt(x.Indices[0])
	if !ok {
		c.errorf(x.Indices[0].Pos(), "D_UREGS_IDX", "index of uregs[ ] must be an integer constant: a register name such as R_PC")
		return nil
	}
	if n < 0 || n > MaxUreg {
		c.errorf(x.Indices[0].Pos(), "D_UREGS_IDX", "index %d of uregs[ ] is not a register", n)
		return nil
	}
	return TUlong
}
