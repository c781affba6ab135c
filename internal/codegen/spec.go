package codegen

// spec.go compiles speculation(), and the end of commit() and discard(),
// over nspec speculative buffers as DTrace keeps them (the guide's
// "Speculative Tracing"): speculation() hands out the ID (from 1) of a
// free buffer, or 0 when none is free, counting the failure ("failed
// speculations (no speculative buffer available)", or "(available
// buffer(s) still busy)" when some buffer was committed or discarded and
// not emptied yet); commit() and discard() mark their buffer done, and
// the consumer frees it once it has emptied it. Each buffer is a slot in
// the globals map (plan.Plan.SpecSlots).

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
)

// maxNSpec is the most speculative buffers sonde keeps: speculation()
// tries each in turn.
const maxNSpec = 64

// usesSpeculation reports whether the program calls speculation().
func usesSpeculation(info *check.Info) bool {
	for _, b := range info.Calls {
		if b != nil && b.Name == "speculation" {
			return true
		}
	}
	return false
}

// specLayout reserves the slots of the speculative buffers at the end of
// the globals laid out so far.
func (g *gen) specLayout() {
	if !usesSpeculation(g.info) {
		return
	}
	g.nspec = max(g.opts.NSpec, 1)
	if g.nspec > maxNSpec {
		g.errorf(token.Pos{}, "nspec %d is more speculative buffers than the %d sonde keeps", g.nspec, maxNSpec)
		g.nspec = maxNSpec
	}
	g.specOff = g.globSize
	g.globSize += 8 * g.nspec
}

// speculation puts a free buffer's ID into R0, or 0.
func (g *gen) speculation() {
	if g.nspec == 0 {
		g.emit(asm.Mov.Imm(asm.R0, 0))
		return
	}
	done := g.label("spec_done")
	for i := 0; i < g.nspec; i++ {
		next := g.label("spec_next")
		g.emit(
			asm.LoadMapValue(asm.R1, 0, uint32(g.specOff+8*i)).WithReference(plan.MapGlobals),
			asm.Mov.Imm(asm.R2, plan.SpecActive),
			asm.Mov.Imm(asm.R0, 0),
			atomicMem(asm.CmpXchg, asm.R1, asm.R2, asm.DWord, 0),
			asm.JNE.Imm(asm.R0, 0, next),
			asm.Mov.Imm(asm.R0, int32(i+1)),
			asm.Ja.Label(done),
			asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(next),
		)
	}
	// none free: busy if some buffer waits to be emptied
	busy := g.label("spec_busy")
	for i := 0; i < g.nspec; i++ {
		g.emit(
			asm.LoadMapValue(asm.R1, 0, uint32(g.specOff+8*i)).WithReference(plan.MapGlobals),
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			asm.JEq.Imm(asm.R1, plan.SpecDone, busy),
		)
	}
	g.stat(plan.StatSpecUnavail)
	fail := g.label("spec_fail")
	g.emit(asm.Ja.Label(fail))
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(busy))
	g.stat(plan.StatSpecBusy)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(fail))
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done))
}

// specDone marks the buffer of ID e (if it is one, and active) done,
// after commit() or discard() recorded it.
func (g *gen) specDone(e ast.Expr) {
	if g.nspec == 0 {
		return
	}
	g.expr(e)
	skip := g.label("specd_skip")
	g.emit(
		asm.Sub.Imm(asm.R0, 1),
		asm.JGE.Imm(asm.R0, int32(g.nspec), skip),
		asm.LSh.Imm(asm.R0, 3),
		asm.LoadMapValue(asm.R1, 0, uint32(g.specOff)).WithReference(plan.MapGlobals),
		asm.Add.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, plan.SpecDone),
		asm.Mov.Imm(asm.R0, plan.SpecActive),
		atomicMem(asm.CmpXchg, asm.R1, asm.R2, asm.DWord, 0),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(skip),
	)
}
