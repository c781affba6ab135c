package codegen

// regs.go compiles uregs[R_...] (check/regs.go): the register of the
// current thread's user context, from the struct pt_regs the kernel saved
// when the thread entered it (bpf_task_pt_regs), which is the probe
// context of a pid or USDT probe and the system call's registers in a
// syscall probe.

import (
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/provider"
)

// uregs loads uregs[i] into R0.
func (g *gen) uregs(x *ast.IndexExpr) {
	if g.cl != nil && g.cl.Subject != 0 {
		// sched:::on-cpu: the subject is not the running thread
		g.errorf(x.Pos(), "uregs[ ] of a thread other than the current one is not supported")
		return
	}
	k, _ := g.info.Consts[ast.Unparen(x.Indices[0])]
	slot := check.UregSlot(k.Int)
	if slot < 0 {
		g.emit(asm.Mov.Imm(asm.R0, 0)) // not in x86-64's pt_regs
		return
	}
	g.userRegs()
	g.regWord(slot, x)
}

// userRegs puts the address of the current thread's user struct pt_regs
// into R0.
func (g *gen) userRegs() {
	g.emit(
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.FnTaskPtRegs.Call(),
	)
}

// regWord loads word slot of the struct pt_regs at R0 into R0.
func (g *gen) regWord(slot int, x ast.Expr) {
	g.stack += 8
	tmp := int16(-g.stack)
	g.emit(
		provider.StoreImm64(asm.R10, tmp, 0),
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.Add.Imm(asm.R3, int32(8*slot)),
		asm.Mov.Reg(regTmp, asm.R3),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, int32(tmp)),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
	)
	ok := g.label("ureg_ok")
	g.emit(asm.JEq.Imm(asm.R0, 0, ok))
	pos := token.Pos{}
	if x != nil {
		pos = x.Pos()
	}
	g.fault(plan.FaultBadAddr, regTmp, pos)
	g.emit(asm.LoadMem(asm.R0, asm.R10, tmp, asm.DWord).WithSymbol(ok))
	g.stack -= 8
}

// atFuncEdge reports whether every probe of the clause is a pid
// provider's function entry or return: the thread is at the function's
// first instruction or at one of its ret instructions, its return address
// on top of the stack.
func (g *gen) atFuncEdge() bool {
	if g.cl == nil || len(g.cl.Probes) == 0 {
		return false
	}
	for _, p := range g.cl.Probes {
		if p.Hook.Kind != probe.HookUprobe || (p.Name != "entry" && p.Name != "return") || !strings.HasPrefix(p.Provider, "pid") {
			return false
		}
	}
	return true
}

// ucaller loads the address the current user function returns to: at a
// pid entry or return probe the word on top of the user stack (as
// DTrace's dtrace_getupcstack reads it at an entry), elsewhere the second frame of
// the frame-pointer walk ustack() prints; 0 when there is none.
func (g *gen) ucaller(pos token.Pos) {
	if g.cl != nil && g.cl.Subject != 0 {
		g.errorf(pos, "ucaller of a thread other than the current one is not supported")
		return
	}
	if g.atFuncEdge() {
		g.userRegs()
		g.regWord(19, nil) // rsp
		g.stack += 8
		tmp := int16(-g.stack)
		ok := g.label("ucaller_ok")
		g.emit(
			provider.StoreImm64(asm.R10, tmp, 0),
			asm.Mov.Reg(asm.R3, asm.R0),
			asm.Mov.Reg(asm.R1, asm.R10),
			asm.Add.Imm(asm.R1, int32(tmp)),
			asm.Mov.Imm(asm.R2, 8),
			asm.FnProbeReadUser.Call(),
			asm.LoadMem(asm.R0, asm.R10, tmp, asm.DWord).WithSymbol(ok),
		)
		g.stack -= 8
		return
	}
	buf := g.temp(16)
	ok := g.label("ucaller_fr")
	g.zero(buf, 16)
	g.emit(
		asm.Mov.Reg(asm.R1, provider.RegCtx),
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(buf)),
		asm.Mov.Imm(asm.R3, 16),
		asm.Mov.Imm(asm.R4, 1<<8), // BPF_F_USER_STACK
		asm.FnGetStack.Call(),
		asm.LoadMem(asm.R0, rS, int16(buf+8), asm.DWord).WithSymbol(ok),
	)
}
