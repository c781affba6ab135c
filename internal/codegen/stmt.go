package codegen

import (
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

func (g *gen) stmt(s ast.Stmt) {
	saved := g.stack
	switch s := s.(type) {
	case *ast.ExprStmt:
		g.exprStmt(s.X)
	case *ast.BlockStmt:
		for _, x := range s.Stmts {
			g.stmt(x)
		}
	case *ast.IfStmt:
		f, end := g.label("if_f"), g.label("if_e")
		g.cond0(s.Cond, f)
		g.cond++
		g.stmt(s.Then)
		if s.Else != nil {
			g.emit(asm.Ja.Label(end))
		}
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(f))
		if s.Else != nil {
			g.stmt(s.Else)
			g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
		}
		g.cond--
	case *ast.EmptyStmt, *ast.DeclStmt:
	}
	g.stack = saved
}

func (g *gen) exprStmt(e ast.Expr) {
	switch x := ast.Unparen(e).(type) {
	case *ast.AssignExpr:
		switch l := ast.Unparen(x.X).(type) {
		case *ast.AggVar:
			g.aggAssign(x, l, nil)
			return
		case *ast.IndexExpr:
			if av, ok := ast.Unparen(l.X).(*ast.AggVar); ok {
				g.aggAssign(x, av, l.Indices)
				return
			}
		}
		g.assign(x)
	case *ast.CallExpr:
		b := g.info.Calls[x]
		if b != nil && b.Kind == check.Action {
			g.actionCall(x, b)
			return
		}
		if b != nil && (b.Name == "stack" || b.Name == "ustack" || b.Name == "jstack") {
			g.record(plan.ActStack, x, []ast.Expr{x}, "", nil)
			return
		}
		if t := g.typeOf(x); t.Kind == check.String || t.Kind == check.Stack || t.Kind == check.Sym {
			return // a value computed for nothing
		}
		g.expr(x)
	default:
		if t := g.typeOf(e); t.Kind == check.String {
			return
		}
		g.expr(e)
	}
}

// aggIDs returns the aggregation IDs named by args.
func (g *gen) aggIDs(args []ast.Expr) []int {
	var ids []int
	for _, a := range args {
		if av, ok := ast.Unparen(a).(*ast.AggVar); ok {
			if v := g.info.Uses[av]; v != nil {
				ids = append(ids, v.ID)
			}
		}
	}
	return ids
}

func (g *gen) actionCall(x *ast.CallExpr, b *check.Builtin) {
	switch b.Name {
	case "printf", "system", "freopen":
		k := g.info.Consts[ast.Unparen(x.Args[0])]
		kind := plan.ActPrintf
		switch b.Name {
		case "system":
			kind = plan.ActSystem
		case "freopen":
			kind = plan.ActFreopen
		}
		g.record(kind, x, x.Args[1:], k.Str, nil)
	case "printa":
		format := ""
		aggs := x.Args
		if k, ok := g.info.Consts[ast.Unparen(x.Args[0])]; ok && k.IsStr {
			format = k.Str
			aggs = x.Args[1:]
		}
		g.record(plan.ActPrinta, x, nil, format, g.aggIDs(aggs))
		g.rec.Actions[len(g.rec.Actions)-1].Str = []string{boolStr(format != "")}
	case "trace":
		g.record(plan.ActTrace, x, x.Args, "", nil)
	case "exit":
		g.record(plan.ActExit, x, x.Args, "", nil)
		act := g.rec.Actions[len(g.rec.Actions)-1]
		g.draining(g.recBase + act.Fields[0].Offset)
	case "clear":
		g.record(plan.ActClear, x, nil, "", g.aggIDs(x.Args))
	case "denormalize":
		g.record(plan.ActDenormalize, x, nil, "", g.aggIDs(x.Args))
	case "trunc":
		g.record(plan.ActTrunc, x, x.Args[1:], "", g.aggIDs(x.Args[:1]))
	case "normalize":
		g.record(plan.ActNormalize, x, x.Args[1:], "", g.aggIDs(x.Args[:1]))
	case "raise":
		if !g.onlyCurrent(x.Pos(), "raise( )") {
			return
		}
		g.record(plan.ActRaise, x, x.Args, "", nil)
		g.raise(x.Args[0])
	case "stop":
		if !g.onlyCurrent(x.Pos(), "stop( )") {
			return
		}
		g.record(plan.ActStop, x, nil, "", nil)
		g.emit(asm.Mov.Imm(asm.R1, int32(unix.SIGSTOP)), asm.FnSendSignal.Call())
	case "speculate":
		g.record(plan.ActSpeculate, x, x.Args, "", nil)
	case "commit":
		g.record(plan.ActCommit, x, x.Args, "", nil)
		g.specDone(x.Args[0]) // spec.go
	case "discard":
		g.record(plan.ActDiscard, x, x.Args, "", nil)
		g.specDone(x.Args[0])
	case "setopt":
		var strs []string
		for _, a := range x.Args {
			strs = append(strs, g.info.Consts[ast.Unparen(a)].Str)
		}
		g.record(plan.ActSetopt, x, nil, "", nil)
		g.rec.Actions[len(g.rec.Actions)-1].Str = strs
	case "tracemem":
		g.tracemem(x)
	case "chill":
		g.chill(x) // copyout.go
	default:
		g.errorf(x.Pos(), "%s( ) is not supported yet", b.Name)
	}
}

func boolStr(b bool) string {
	if b {
		return "fmt"
	}
	return ""
}

// record appends an action that records the values of args.
func (g *gen) record(kind plan.ActionKind, x *ast.CallExpr, args []ast.Expr, format string, aggs []int) {
	act := plan.Action{Kind: kind, Format: format, Aggs: aggs, Pos: x.Pos()}
	if g.cond > 0 {
		act.Cond = true
		act.Bit = len(g.rec.Actions)
		if act.Bit >= 64 {
			g.errorf(x.Pos(), "too many actions in one clause (at most 64)")
			return
		}
	}
	for _, a := range args {
		t := g.typeOf(a)
		f := fieldFor(t)
		if f.Kind == plan.FInt && kind != plan.ActPrintf && kind != plan.ActTrace && kind != plan.ActSystem {
			f.Size, f.Signed = 8, true
		}
		f.Offset = g.recOff
		g.recOff += roundUp(f.Size, 8)
		g.fieldInto(a, f, g.recBase+f.Offset)
		act.Fields = append(act.Fields, f)
	}
	if act.Cond {
		g.emit(
			asm.LoadMem(asm.R0, rS, int16(g.recBase+plan.HdrMask), asm.DWord),
			asm.LoadImm(asm.R1, int64(1)<<act.Bit, asm.DWord),
			asm.Or.Reg(asm.R0, asm.R1),
			asm.StoreMem(rS, int16(g.recBase+plan.HdrMask), asm.R0, asm.DWord),
		)
	}
	g.rec.Actions = append(g.rec.Actions, act)
}

// raise(sig) sends sig to the thread that fired the probe, as DTrace's
// dtrace_action_raise does: the kernel delivers it when the thread returns
// to user space. The record keeps the action's place in the clause's
// numbering; the signal is sent here, not by the consumer, so that it
// reaches the right thread at the right moment even when records drop.
func (g *gen) raise(sig ast.Expr) {
	g.expr(sig)
	g.emit(asm.Mov.Reg(asm.R1, asm.R0), asm.FnSendSignalThread.Call())
}

// tracemem(addr, size) records size bytes of kernel memory.
func (g *gen) tracemem(x *ast.CallExpr) {
	n, _ := g.info.Consts[ast.Unparen(x.Args[1])]
	size := int(n.Int)
	if size <= 0 || size > 4096 {
		g.errorf(x.Args[1].Pos(), "tracemem( ) size must be between 1 and 4096")
		return
	}
	f := plan.Field{Kind: plan.FBytes, Offset: g.recOff, Size: size}
	g.recOff += roundUp(size, 8)
	g.expr(x.Args[0])
	g.emit(
		asm.Mov.Reg(regTmp, asm.R0),
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(g.recBase+f.Offset)),
		asm.Mov.Imm(asm.R2, int32(size)),
		asm.FnProbeReadKernel.Call(),
	)
	ok := g.label("tm_ok")
	g.emit(asm.JEq.Imm(asm.R0, 0, ok))
	g.fault(plan.FaultBadAddr, regTmp, x.Pos())
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
	g.rec.Actions = append(g.rec.Actions, plan.Action{Kind: plan.ActTracemem, Fields: []plan.Field{f}, Pos: x.Pos(), Cond: g.cond > 0, Bit: len(g.rec.Actions)})
}

// callInt evaluates a subroutine with an integer result into R0.
func (g *gen) callInt(x *ast.CallExpr) {
	b := g.info.Calls[x]
	if b == nil {
		g.errorf(x.Pos(), "unknown function")
		return
	}
	switch b.Name {
	case "rand":
		g.emit(asm.FnGetPrandomU32.Call())
	case "htons", "ntohs":
		g.expr(x.Args[0])
		g.emit(asm.HostTo(asm.BE, asm.R0, asm.Half))
	case "htonl", "ntohl":
		g.expr(x.Args[0])
		g.emit(asm.HostTo(asm.BE, asm.R0, asm.Word))
	case "htonll", "ntohll":
		g.expr(x.Args[0])
		g.emit(asm.HostTo(asm.BE, asm.R0, asm.DWord))
	case "strlen":
		loc := g.strExpr(x.Args[0])
		g.strlen(loc)
	case "progenyof":
		g.progenyof(x)
	case "copyin":
		g.copyin(x)
	case "speculation":
		g.speculation() // spec.go
	default:
		if g.intFunc(b.Name, x) {
			return
		}
		g.errorf(x.Pos(), "%s( ) is not supported yet", b.Name)
	}
}

// strlen counts the bytes before the NUL of a string into R0, without a
// data-dependent branch (so the verifier walks the loop once).
func (g *gen) strlen(l strLoc) {
	g.addr(asm.R1, l)
	loop, end := g.label("sl_loop"), g.label("sl_end")
	g.emit(
		asm.Mov.Imm(asm.R0, 0),
		asm.Mov.Imm(asm.R3, 1), // still counting
		asm.Mov.Imm(asm.R4, 0),
		asm.JGE.Imm(asm.R4, int32(l.size-1), end).WithSymbol(loop),
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Byte),
		// counting &= (b != 0): (b - 1) >> 63 is 1 only for b == 0
		asm.Sub.Imm(asm.R2, 1), asm.RSh.Imm(asm.R2, 63), asm.Xor.Imm(asm.R2, 1),
		asm.And.Reg(asm.R3, asm.R2),
		asm.Add.Reg(asm.R0, asm.R3),
		asm.Add.Imm(asm.R1, 1),
		asm.Add.Imm(asm.R4, 1),
		asm.Ja.Label(loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end),
	)
}

// ppid reads current->real_parent->tgid. The field offsets come from the
// kernel's BTF at load time: the runtime patches the marked constants.
func (g *gen) ppid() {
	slot := int16(-(g.stack + 8))
	g.emit(
		asm.FnGetCurrentTask.Call(),
		asm.Mov.Reg(asm.R3, asm.R0),
		plan.WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), "task_struct", "real_parent"),
		asm.Add.Reg(asm.R3, asm.R1),
		provider.StoreImm64(asm.R10, slot, 0),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, int32(slot)),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
		asm.LoadMem(asm.R3, asm.R10, slot, asm.DWord),
		plan.WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), "task_struct", "tgid"),
		asm.Add.Reg(asm.R3, asm.R1),
		provider.StoreImm64(asm.R10, slot, 0),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, int32(slot)),
		asm.Mov.Imm(asm.R2, 4),
		asm.FnProbeReadKernel.Call(),
		asm.LoadMem(asm.R0, asm.R10, slot, asm.Word),
	)
}

// taskField loads the size-byte field at path of the task_struct whose
// address is in r into R0 (offset patched from BTF at load).
func (g *gen) taskField(r asm.Register, path string, size int) {
	g.kernField(r, "task_struct", path, size)
}

// progenyof(pid): whether the process (the clause's subject) is pid or descends from it,
// walking at most 64 parents.
func (g *gen) progenyof(x *ast.CallExpr) {
	g.expr(x.Args[0])
	want := g.push()
	loop, yes, no, end := g.label("pg_loop"), g.label("pg_yes"), g.label("pg_no"), g.label("pg_end")
	if g.cl != nil && g.cl.Subject != 0 {
		g.subjectTask(regTmp)
	} else {
		g.emit(asm.FnGetCurrentTask.Call(), asm.Mov.Reg(regTmp, asm.R0))
	}
	cnt := g.push() // reuse: the counter lives in a slot
	g.emit(provider.StoreImm64(asm.R10, cnt, 0))
	g.emit(asm.Mov.Reg(regTmp, regTmp).WithSymbol(loop))
	g.taskField(regTmp, "tgid", 4)
	g.emit(
		asm.LoadMem(asm.R1, asm.R10, want, asm.DWord),
		asm.JEq.Reg(asm.R0, asm.R1, yes),
		asm.JEq.Imm(asm.R0, 1, no), // reached init
		asm.JEq.Imm(asm.R0, 0, no),
	)
	g.taskField(regTmp, "real_parent", 8)
	g.emit(
		asm.JEq.Imm(asm.R0, 0, no),
		asm.Mov.Reg(regTmp, asm.R0),
		asm.LoadMem(asm.R1, asm.R10, cnt, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R10, cnt, asm.R1, asm.DWord),
		asm.JLT.Imm(asm.R1, 64, loop),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(no),
		asm.Ja.Label(end),
		asm.Mov.Imm(asm.R0, 1).WithSymbol(yes),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end),
	)
	g.stack -= 16
}

// copyin(addr, size) copies user memory into clause scratch space and
// yields its (kernel) address, as DTrace's copyin returns scratch memory.
func (g *gen) copyin(x *ast.CallExpr) {
	if !g.onlyCurrent(x.Pos(), "copyin( )") {
		return
	}
	k, ok := g.info.Consts[ast.Unparen(x.Args[1])]
	if ok && !k.IsStr && (k.Int <= 0 || k.Int > maxRuntimeSize) {
		g.errorf(x.Args[1].Pos(), "copyin( ) size must be from 1 to %d", maxRuntimeSize)
		return
	}
	if !ok {
		// a size known when the code runs: the room of the largest
		g.expr(x.Args[1])
		s := g.runtimeSize(x.Args[1].Pos())
		off := g.temp(maxRuntimeSize + 8)
		g.expr(x.Args[0])
		g.readInto(off)
		g.emit(
			asm.LoadMem(asm.R2, asm.R10, s, asm.DWord),
		)
		g.clamp(asm.R2, 0, maxRuntimeSize-1) // (checked: for the verifier)
		g.emit(
			// a NUL after the bytes, should they be read as a string
			asm.Mov.Reg(asm.R4, asm.R1), asm.Add.Reg(asm.R4, asm.R2),
			asm.StoreImm(asm.R4, 0, 0, asm.Byte),
			asm.FnProbeReadUser.Call(),
		)
		g.stack -= 8
		ok2 := g.label("ci_ok")
		g.emit(asm.JEq.Imm(asm.R0, 0, ok2))
		g.fault(plan.FaultBadAddr, regTmp, x.Pos())
		g.emit(asm.Mov.Reg(asm.R0, rS).WithSymbol(ok2), asm.Add.Imm(asm.R0, int32(off)))
		return
	}
	n := int(k.Int)
	off := g.temp(n)
	g.expr(x.Args[0])
	g.readInto(off)
	g.emit(
		asm.Mov.Imm(asm.R2, int32(n)),
		asm.FnProbeReadUser.Call(),
	)
	ok2 := g.label("ci_ok")
	g.emit(asm.JEq.Imm(asm.R0, 0, ok2))
	g.fault(plan.FaultBadAddr, regTmp, x.Pos())
	g.emit(asm.Mov.Reg(asm.R0, rS).WithSymbol(ok2), asm.Add.Imm(asm.R0, int32(off)))
}

// maxRuntimeSize is the room kept for copyin() and alloca() of a size
// known only when the code runs: a larger size faults with "out of
// scratch space" (DTRACEFLT_NOSCRATCH), as DTrace's does beyond its
// scratch.
const maxRuntimeSize = 2048

// runtimeSize checks the size in R0 (1 to maxRuntimeSize, or the clause
// faults) and keeps it in a new stack slot, which it returns.
func (g *gen) runtimeSize(pos token.Pos) int16 {
	ok := g.label("rsz_ok")
	bad := g.label("rsz_bad")
	g.emit(
		asm.JEq.Imm(asm.R0, 0, bad),
		asm.JLE.Imm(asm.R0, maxRuntimeSize, ok),
		asm.Mov.Reg(regTmp, asm.R0).WithSymbol(bad),
	)
	g.fault(plan.FaultNoScratch, regTmp, pos)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(ok))
	return g.push()
}

// atomicMem is op.Mem(dst, src, size, off) with the immediate that names
// the operation set: cilium/ebpf v0.20.0's Marshal writes the immediate
// before it derives it from the opcode, so that an instruction built by
// Mem goes to the kernel as a plain atomic add (imm 0) whatever op is:
// FetchAdd lost its fetch, and speculation() returned 2 every time.
func atomicMem(op asm.AtomicOp, dst, src asm.Register, size asm.Size, off int16) asm.Instruction {
	ins := op.Mem(dst, src, size, off)
	ins.Constant = int64(op >> 8)
	return ins
}
