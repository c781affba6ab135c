package codegen

// copyout.go compiles the subroutines that copy memory the guide lists
// with copyin(): bcopy() into scratch memory, and the destructive
// copyout() and copyoutstr() into the traced process's memory
// (bpf_probe_write_user), and the destructive action chill(), which
// spins for a while.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/plan"
)

// copyToScratch copies size bytes (x.Args[sizeArg], at most
// maxRuntimeSize) from the address x.Args[srcArg] (read with fn) to
// x.Args[dstArg], which must be scratch memory the clause allocated
// (alloca(), copyin()) with room for them, or the clause faults with an
// invalid address, as DTrace's dtrace_canstore refuses it.
func (g *gen) copyToScratch(x *ast.CallExpr, srcArg, sizeArg, dstArg int, fn asm.BuiltinFunc) {
	tmp := int16(g.temp(8))
	g.expr(x.Args[sizeArg])
	size := g.runtimeSize(x.Args[sizeArg].Pos())
	g.expr(x.Args[srcArg])
	src := g.push()
	g.expr(x.Args[dstArg])
	g.scratchOffset(tmp)
	g.emit(
		asm.LoadMem(asm.R3, asm.R10, size, asm.DWord),
	)
	g.clamp(asm.R3, 1, maxRuntimeSize)
	// dest - scratch + size must stay within the clause's temporaries
	lo, hi := g.tempBase, g.recBase
	bad, ok := g.label("cts_bad"), g.label("cts_ok")
	g.emit(
		asm.JSLT.Imm(asm.R2, int32(lo), bad),
		asm.JSGT.Imm(asm.R2, int32(hi), bad),
		asm.Mov.Reg(asm.R4, asm.R2),
		asm.Add.Reg(asm.R4, asm.R3),
		asm.JSGT.Imm(asm.R4, int32(hi), bad),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Reg(asm.R1, asm.R2),
		asm.Mov.Reg(asm.R2, asm.R3),
		asm.LoadMem(asm.R3, asm.R10, src, asm.DWord),
		asm.Mov.Reg(regTmp, asm.R3),
		fn.Call(),
		asm.JEq.Imm(asm.R0, 0, ok),
	)
	g.fault(plan.FaultBadAddr, regTmp, x.Pos())
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(bad))
	g.fault(plan.FaultBadAddr, regTmp, x.Pos())
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
	g.stack -= 16
}

// copyout(buf, addr, nbytes): nbytes of kernel memory at buf written to
// the current process's memory at addr; a bad address faults.
func (g *gen) copyout(x *ast.CallExpr) {
	g.expr(x.Args[2])
	size := g.runtimeSize(x.Args[2].Pos())
	buf := g.temp(maxRuntimeSize)
	g.expr(x.Args[0])
	g.readInto(buf)
	g.emit(
		asm.LoadMem(asm.R2, asm.R10, size, asm.DWord),
	)
	g.clamp(asm.R2, 1, maxRuntimeSize)
	ok := g.label("co_rd")
	g.emit(asm.FnProbeReadKernel.Call(), asm.JEq.Imm(asm.R0, 0, ok))
	g.fault(plan.FaultBadAddr, regTmp, x.Args[0].Pos())
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(ok))
	g.writeUser(x.Args[1], buf, size, x)
	g.stack -= 8
}

// copyoutstr(str, addr, maxlen): the string and its NUL, at most maxlen
// bytes, written to the current process's memory at addr.
func (g *gen) copyoutstr(x *ast.CallExpr) {
	s := g.strExpr(x.Args[0])
	g.strlen(s)
	g.emit(asm.Add.Imm(asm.R0, 1))
	n := g.push()
	g.expr(x.Args[2])
	done := g.label("cos_done")
	g.emit(asm.JSLE.Imm(asm.R0, 0, done)) // nothing to write
	g.emit(asm.LoadMem(asm.R1, asm.R10, n, asm.DWord))
	short := g.label("cos_short")
	g.emit(asm.JLE.Reg(asm.R1, asm.R0, short), asm.StoreMem(asm.R10, n, asm.R0, asm.DWord))
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(short))
	buf := s.off
	if s.area != inScratch {
		buf = g.strCopy(s, s.size)
	}
	g.writeUserN(x.Args[1], buf, n, s.size, x)
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(done))
	g.stack -= 8
}

// writeUser writes the bytes at scratch offset buf, as many as the stack
// slot size says (1 to maxRuntimeSize), to the user address e.
func (g *gen) writeUser(e ast.Expr, buf int, size int16, x *ast.CallExpr) {
	g.writeUserN(e, buf, size, maxRuntimeSize, x)
}

func (g *gen) writeUserN(e ast.Expr, buf int, size int16, max int, x *ast.CallExpr) {
	g.expr(e)
	g.emit(
		asm.Mov.Reg(regTmp, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(buf)),
		asm.LoadMem(asm.R3, asm.R10, size, asm.DWord),
	)
	g.clamp(asm.R3, 1, int32(max))
	ok := g.label("wu_ok")
	g.emit(asm.FnProbeWriteUser.Call(), asm.JEq.Imm(asm.R0, 0, ok))
	g.fault(plan.FaultBadAddr, regTmp, x.Pos())
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
}

// chillMax is the longest chill() sonde spins, in nanoseconds: DTrace's
// default chill_max, which DTrace applies to the sum of the chills of a
// second.
const chillMax = 500000000

// chill(ns) spins the CPU for ns nanoseconds (at most chillMax): a
// bpf_loop whose iterations read the clock until the time is up.
func (g *gen) chill(x *ast.CallExpr) {
	g.expr(x.Args[0])
	g.clamp(asm.R0, 0, chillMax)
	until := int16(g.temp(8))
	g.emit(asm.StoreMem(rS, until, asm.R0, asm.DWord), asm.FnKtimeGetNs.Call(),
		asm.LoadMem(asm.R1, rS, until, asm.DWord), asm.Add.Reg(asm.R0, asm.R1),
		asm.StoreMem(rS, until, asm.R0, asm.DWord))
	// a few loops of the most iterations bpf_loop allows: each ends
	// as soon as the time is up
	for i := 0; i < 4; i++ {
		g.emit(asm.Mov.Imm(asm.R1, 1<<23))
		g.bpfLoop(func(brk string) {
			g.emit(
				asm.FnKtimeGetNs.Call(),
				asm.LoadMem(asm.R1, rS, until, asm.DWord),
				asm.JGE.Reg(asm.R0, asm.R1, brk),
			)
		})
	}
}

// scratchOffset puts the address in R0 in regTmp and its offset from the
// start of scratch memory in R2 (R1 the start), as plain numbers: through
// scratch memory at tmp, which keeps no pointer types, so that the offset
// is a number to bound.
func (g *gen) scratchOffset(tmp int16) {
	g.emit(
		asm.StoreMem(rS, tmp, asm.R0, asm.DWord),
		asm.LoadMem(regTmp, rS, tmp, asm.DWord),
		asm.StoreMem(rS, tmp, rS, asm.DWord),
		asm.LoadMem(asm.R1, rS, tmp, asm.DWord),
		asm.Mov.Reg(asm.R2, regTmp),
		asm.Sub.Reg(asm.R2, asm.R1),
	)
}

// readInto sets up a read (bpf_probe_read_*) of the address in R0 into
// scratch memory at off: R3 the source, also in regTmp for a fault's
// report, and R1 the destination; the size, in R2, is the caller's.
func (g *gen) readInto(off int) {
	g.emit(
		asm.Mov.Reg(regTmp, asm.R0),
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(off)),
	)
}
