package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

const rS = provider.RegScratch

// push spills R0 to a new stack slot and returns its offset from R10.
func (g *gen) push() int16 {
	g.stack += 8
	if g.stack > 480 {
		g.errorf(token.Pos{}, "expression too complex: out of BPF stack")
	}
	off := int16(-g.stack)
	g.emit(asm.StoreMem(asm.R10, off, asm.R0, asm.DWord))
	return off
}

// pop reloads a spilled slot into r and frees it.
func (g *gen) pop(r asm.Register, off int16) {
	g.emit(asm.LoadMem(r, asm.R10, off, asm.DWord))
	g.stack -= 8
}

func (g *gen) typeOf(e ast.Expr) *check.Type {
	if t := g.info.Types[e]; t != nil {
		return t
	}
	return check.TLong
}

// normalize sign- or zero-extends R-register r to the width of t.
func (g *gen) normalize(r asm.Register, t *check.Type) {
	if t == nil || t.Kind != check.Int || t.Size >= 8 {
		return
	}
	shift := int32(64 - 8*t.Size)
	g.emit(asm.LSh.Imm(r, shift))
	if t.Signed {
		g.emit(asm.ArSh.Imm(r, shift))
	} else {
		g.emit(asm.RSh.Imm(r, shift))
	}
}

// expr evaluates an integer or pointer expression into R0.
func (g *gen) expr(e ast.Expr) {
	if k, ok := g.info.Consts[e]; ok && !k.IsStr {
		g.emit(asm.LoadImm(asm.R0, k.Int, asm.DWord))
		return
	}
	t := g.typeOf(e)
	if t.Kind == check.String {
		g.errorf(e.Pos(), "string value used where an integer is required")
		return
	}
	if g.structVarValue(e) {
		return // svar.go
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		g.expr(x.X)
	case *ast.Ident:
		g.ident(x)
	case *ast.SelfVar:
		v := g.info.Uses[x]
		g.emit(asm.LoadMem(asm.R0, regSelf, int16(g.selfs[v].off), asm.DWord))
	case *ast.ThisVar:
		v := g.info.Uses[x]
		g.emit(asm.LoadMem(asm.R0, rS, int16(g.thiss[v].off), asm.DWord))
	case *ast.IndexExpr:
		g.indexExpr(x)
	case *ast.UnaryExpr:
		g.unary(x)
	case *ast.PostfixExpr:
		g.incdec(x.X, x.Op, true)
	case *ast.BinaryExpr:
		g.binary(x)
	case *ast.AssignExpr:
		g.assign(x)
	case *ast.CondExpr:
		f, end := g.label("cf"), g.label("ce")
		g.cond0(x.Cond, f)
		g.expr(x.X)
		g.emit(asm.Ja.Label(end))
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(f))
		g.expr(x.Y)
		g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end))
	case *ast.CastExpr:
		g.expr(x.X)
		g.normalize(asm.R0, t)
	case *ast.CallExpr:
		g.callInt(x)
	case *ast.SelectorExpr:
		g.memberInt(x)
	case *ast.XlateExpr:
		if xl := g.info.Xlates[x]; xl != nil {
			g.xlValue(x, xl) // xlate.go
			return
		}
		g.errorf(x.Pos(), "untranslated xlate expression")
	default:
		g.errorf(e.Pos(), "expression not supported here")
	}
}

func (g *gen) ident(x *ast.Ident) {
	if g.xlParam(x) {
		return // a translator's parameter (xlate.go)
	}
	if in := g.info.Inlines[x]; in != nil {
		// an inline that is not a constant: its value, in place
		g.expr(in.Value)
		g.normalize(asm.R0, g.typeOf(x))
		return
	}
	if bv := g.info.Builtins[x]; bv != nil {
		g.builtin(bv, x.Pos())
		return
	}
	if v := g.info.Uses[x]; v != nil {
		loc, ok := g.globals[v]
		if !ok {
			g.errorf(x.Pos(), "%s has no storage", x.Name)
			return
		}
		g.emit(asm.LoadMapValue(asm.R0, 0, uint32(loc.off)).WithReference(plan.MapGlobals),
			asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord))
		return
	}
	g.errorf(x.Pos(), "unresolved name %s", x.Name)
}

// builtin loads an integer built-in variable into R0.
func (g *gen) builtin(bv *check.BuiltinVar, pos token.Pos) {
	switch id := bv.ID; {
	case id <= check.BArg9:
		n := int(id - check.BArg0)
		g.needs.Args[n] = true
		g.emit(asm.LoadMem(asm.R0, rS, int16(provider.CtxArg0+8*n), asm.DWord))
	case g.cl != nil && g.cl.Subject != 0 && (id == check.BPid || id == check.BTid || id == check.BPpid || id == check.BCurthread || id == check.BCurpsinfo || id == check.BCurlwpsinfo ||
		id == check.BUid || id == check.BGid || id == check.BVtimestamp):
		g.subjectBuiltin(id)
	case id == check.BPid:
		g.emit(asm.FnGetCurrentPidTgid.Call(), asm.RSh.Imm(asm.R0, 32))
	case id == check.BTid:
		g.emit(asm.FnGetCurrentPidTgid.Call(), asm.LSh.Imm(asm.R0, 32), asm.RSh.Imm(asm.R0, 32))
	case id == check.BUid:
		g.emit(asm.FnGetCurrentUidGid.Call(), asm.LSh.Imm(asm.R0, 32), asm.RSh.Imm(asm.R0, 32))
	case id == check.BGid:
		g.emit(asm.FnGetCurrentUidGid.Call(), asm.RSh.Imm(asm.R0, 32))
	case id == check.BCpu:
		g.emit(asm.FnGetSmpProcessorId.Call())
	case id == check.BTimestamp:
		g.needTS = true
		g.emit(asm.LoadMem(asm.R0, rS, provider.CtxTimestamp, asm.DWord))
	case id == check.BWalltimestamp:
		g.emit(asm.FnKtimeGetBootNs.Call(),
			asm.LoadMapValue(asm.R1, 0, uint32(g.p.GlobalWallOffset)).WithReference(plan.MapGlobals),
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			asm.Add.Reg(asm.R0, asm.R1))
	case id == check.BErrno:
		g.needs.Errno = true
		g.emit(asm.LoadMem(asm.R0, rS, provider.CtxErrno, asm.DWord))
	case id == check.BID:
		g.emit(asm.LoadMem(asm.R0, rS, provider.CtxProbeID, asm.DWord))
	case id == check.BEpid:
		g.emit(asm.Mov.Imm(asm.R0, int32(g.rec.EPID)))
	case id == check.BCurthread, id == check.BCurpsinfo, id == check.BCurlwpsinfo:
		g.emit(asm.FnGetCurrentTask.Call())
	case id == check.BPpid:
		g.ppid()
	case id == check.BUstackdepth:
		g.ustackdepth(pos)
	case id == check.BStackdepth:
		if g.requestOnly(pos, "stackdepth") {
			g.stackdepth() // kstack.go
		}
	case id == check.BCaller:
		if g.requestOnly(pos, "caller") {
			g.caller() // kstack.go
		}
	case id == check.BUcaller:
		g.ucaller(pos) // regs.go
	case id == check.BCurcpu:
		g.curcpu() // cpuinfo.go
	case id == check.BVtimestamp:
		// the thread's on-CPU time as the scheduler accounts it
		g.emit(asm.FnGetCurrentTask.Call())
		g.taskField(asm.R0, "se.sum_exec_runtime", 8)
	default:
		g.errorf(pos, "built-in variable %s is not supported yet", bv.Name)
	}
}

func (g *gen) indexExpr(x *ast.IndexExpr) {
	if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && g.info.Builtins[id] != nil && g.info.Builtins[id].ID == check.BArgs {
		if xl := g.info.Xlates[x]; xl != nil {
			g.xlValue(x, xl) // xlate.go: a translated argument
			return
		}
		n, _ := g.info.Consts[x.Indices[0]]
		g.needs.Args[n.Int] = true
		g.emit(asm.LoadMem(asm.R0, rS, int16(provider.CtxArg0+8*int(n.Int)), asm.DWord))
		g.normalize(asm.R0, g.typeOf(x))
		return
	}
	if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && g.info.Builtins[id] != nil && g.info.Builtins[id].ID == check.BUregs {
		g.uregs(x) // regs.go
		return
	}
	if g.arrayElem(x) {
		g.arrayLoad(x) // varray.go
		return
	}
	switch b := ast.Unparen(x.X).(type) {
	case *ast.Ident, *ast.SelfVar:
		if v := g.info.Uses[b]; v != nil && v.Assoc {
			a := g.assoc[v]
			key := g.assocKey(a, x.Indices)
			nf := g.label("anf")
			end := g.label("aend")
			g.emit(
				asm.LoadMapPtr(asm.R1, 0).WithReference(a.name),
				asm.Mov.Reg(asm.R2, rS),
				asm.Add.Imm(asm.R2, int32(key)),
				asm.FnMapLookupElem.Call(),
				asm.JEq.Imm(asm.R0, 0, nf),
				asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
				asm.Ja.Label(end),
				asm.Mov.Imm(asm.R0, 0).WithSymbol(nf),
				asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end),
			)
			return
		}
	}
	// pointer or array subscript: *(p + i)
	user := g.lvalAddr(x) // xlate.go
	g.deref(g.typeOf(x), user, x.Pos())
}

// deref loads a value of type t from the address in R0.
func (g *gen) deref(t *check.Type, user bool, pos token.Pos) {
	if t.Kind != check.Int && t.Kind != check.Pointer {
		g.errorf(pos, "cannot load a %s value", t)
		return
	}
	size := max(t.Size, 1)
	g.stack += 8
	slot := int16(-g.stack)
	fn := asm.FnProbeReadKernel
	if user {
		if !g.onlyCurrent(pos, "reading user memory") {
			return
		}
		fn = asm.FnProbeReadUser
	}
	g.emit(
		provider.StoreImm64(asm.R10, slot, 0),
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.Mov.Reg(regTmp, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, int32(slot)),
		asm.Mov.Imm(asm.R2, int32(size)),
		fn.Call(),
	)
	ok := g.label("rd_ok")
	g.emit(asm.JEq.Imm(asm.R0, 0, ok))
	g.fault(plan.FaultBadAddr, regTmp, pos)
	g.emit(asm.LoadMem(asm.R0, asm.R10, slot, asm.DWord).WithSymbol(ok))
	g.stack -= 8
	g.normalize(asm.R0, t)
}

func (g *gen) unary(x *ast.UnaryExpr) {
	switch x.Op {
	case token.SUB:
		g.expr(x.X)
		g.emit(asm.Neg.Imm(asm.R0, 0))
	case token.ADD:
		g.expr(x.X)
	case token.TILDE:
		g.expr(x.X)
		g.emit(asm.Xor.Imm(asm.R0, -1))
	case token.NOT:
		f, end := g.label("nf"), g.label("ne")
		g.cond0(x.X, f)
		g.emit(asm.Mov.Imm(asm.R0, 0), asm.Ja.Label(end))
		g.emit(asm.Mov.Imm(asm.R0, 1).WithSymbol(f))
		g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end))
	case token.INC, token.DEC:
		g.incdec(x.X, x.Op, false)
	case token.AND:
		g.lvalAddrOf(x.X, false) // xlate.go
	case token.MUL:
		pt := g.typeOf(x.X)
		g.expr(x.X)
		g.deref(g.typeOf(x), pt.User, x.OpPos)
	default:
		g.errorf(x.OpPos, "operator %s not supported", x.Op)
	}
	g.normalize(asm.R0, g.typeOf(x))
}

// incdec implements ++ and -- (post: the value before).
func (g *gen) incdec(lv ast.Expr, op token.Kind, post bool) {
	g.expr(lv)
	g.emit(asm.Mov.Reg(regTmp, asm.R0))
	if op == token.INC {
		g.emit(asm.Add.Imm(asm.R0, 1))
	} else {
		g.emit(asm.Sub.Imm(asm.R0, 1))
	}
	g.normalize(asm.R0, g.typeOf(lv))
	if post {
		s0 := g.pushReg(regTmp)
		g.store(lv)
		g.pop(asm.R0, s0)
		return
	}
	g.store(lv)
}

func (g *gen) pushReg(r asm.Register) int16 {
	g.stack += 8
	off := int16(-g.stack)
	g.emit(asm.StoreMem(asm.R10, off, r, asm.DWord))
	return off
}

var aluOps = map[token.Kind]asm.ALUOp{
	token.ADD: asm.Add, token.SUB: asm.Sub, token.MUL: asm.Mul, token.QUO: asm.Div, token.REM: asm.Mod,
	token.AND: asm.And, token.OR: asm.Or, token.XOR: asm.Xor, token.SHL: asm.LSh, token.SHR: asm.RSh,
}

func (g *gen) binary(x *ast.BinaryExpr) {
	switch x.Op {
	case token.COMMA:
		g.exprStmt(x.X)
		g.expr(x.Y)
		return
	case token.LAND, token.LOR, token.LXOR, token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		f, end := g.label("bf"), g.label("be")
		g.cond0(x, f)
		g.emit(asm.Mov.Imm(asm.R0, 1), asm.Ja.Label(end))
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(f))
		g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end))
		return
	}
	t := g.typeOf(x)
	g.arith(x.Op, x.X, x.Y, t, x.OpPos)
}

// arith computes X op Y into R0 with the arithmetic of type t.
func (g *gen) arith(op token.Kind, X, Y ast.Expr, t *check.Type, pos token.Pos) {
	xt, yt := g.typeOf(X), g.typeOf(Y)
	g.expr(X)
	s := g.push()
	g.expr(Y)
	g.emit(asm.Mov.Reg(asm.R1, asm.R0))
	g.pop(asm.R0, s)
	g.arithRegs(op, t, xt, yt, pos)
}

// arithRegs computes R0 = R0 op R1.
func (g *gen) arithRegs(op token.Kind, t, xt, yt *check.Type, pos token.Pos) {
	// pointer arithmetic scales by the element size
	if (op == token.ADD || op == token.SUB) && xt.Kind == check.Pointer && yt.Kind != check.Pointer && xt.Elem.Size > 1 {
		g.emit(asm.Mul.Imm(asm.R1, int32(xt.Elem.Size)))
	}
	alu, ok := aluOps[op]
	if !ok {
		g.errorf(pos, "operator %s not supported", op)
		return
	}
	if op == token.QUO || op == token.REM {
		ok := g.label("div_ok")
		g.emit(asm.JNE.Imm(asm.R1, 0, ok))
		g.emit(asm.Mov.Imm(regTmp, 0))
		g.fault(plan.FaultDivZero, regTmp, pos)
		g.emit(asm.Mov.Reg(asm.R1, asm.R1).WithSymbol(ok))
		if t.Signed {
			if op == token.QUO {
				alu = asm.SDiv
			} else {
				alu = asm.SMod
			}
		}
	}
	if op == token.SHR && t.Signed {
		alu = asm.ArSh
	}
	g.emit(alu.Reg(asm.R0, asm.R1))
	g.normalize(asm.R0, t)
}

// cond0 jumps to f when e is false (zero, or an empty comparison).
func (g *gen) cond0(e ast.Expr, f string) {
	if k, ok := g.info.Consts[e]; ok && !k.IsStr {
		if k.Int == 0 {
			g.emit(asm.Ja.Label(f))
		}
		return
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			t := g.label("nt")
			g.cond0(x.X, t)
			g.emit(asm.Ja.Label(f))
			g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(t))
			return
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND:
			g.cond0(x.X, f)
			g.cond0(x.Y, f)
			return
		case token.LOR:
			t, y := g.label("ot"), g.label("oy")
			g.cond0(x.X, y)
			g.emit(asm.Ja.Label(t))
			g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(y))
			g.cond0(x.Y, f)
			g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(t))
			return
		case token.LXOR:
			g.truth(x.X)
			s := g.push()
			g.truth(x.Y)
			g.pop(asm.R1, s)
			g.emit(asm.JEq.Reg(asm.R0, asm.R1, f))
			return
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			g.compare(x, f)
			return
		}
	}
	t := g.typeOf(e)
	if t.Kind == check.String {
		// a string is true when it is non-empty
		loc := g.strExpr(e)
		g.addr(asm.R1, loc)
		g.emit(asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte), asm.JEq.Imm(asm.R0, 0, f))
		return
	}
	g.expr(e)
	g.emit(asm.JEq.Imm(asm.R0, 0, f))
}

// truth evaluates e as 0 or 1.
func (g *gen) truth(e ast.Expr) {
	f, end := g.label("tf"), g.label("te")
	g.cond0(e, f)
	g.emit(asm.Mov.Imm(asm.R0, 1), asm.Ja.Label(end))
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(f))
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end))
}

// negated jump ops: jump to false label when the comparison fails.
var notJump = map[token.Kind][2]asm.JumpOp{ // [unsigned, signed]
	token.EQL: {asm.JNE, asm.JNE},
	token.NEQ: {asm.JEq, asm.JEq},
	token.LSS: {asm.JGE, asm.JSGE},
	token.LEQ: {asm.JGT, asm.JSGT},
	token.GTR: {asm.JLE, asm.JSLE},
	token.GEQ: {asm.JLT, asm.JSLT},
}

func (g *gen) compare(x *ast.BinaryExpr, f string) {
	xt, yt := g.typeOf(x.X), g.typeOf(x.Y)
	if xt.Kind == check.String || yt.Kind == check.String {
		g.strCompare(x, f)
		return
	}
	signed := 0
	if at := arithType(xt, yt); at.Signed {
		signed = 1
	}
	op := notJump[x.Op][signed]
	if k, ok := g.info.Consts[x.Y]; ok && !k.IsStr && k.Int >= -1<<31 && k.Int < 1<<31 {
		g.expr(x.X)
		g.emit(op.Imm(asm.R0, int32(k.Int), f))
		return
	}
	g.expr(x.X)
	s := g.push()
	g.expr(x.Y)
	g.emit(asm.Mov.Reg(asm.R1, asm.R0))
	g.pop(asm.R0, s)
	g.emit(op.Reg(asm.R0, asm.R1, f))
}

func arithType(a, b *check.Type) *check.Type {
	if a.Kind != check.Int {
		return a
	}
	if b.Kind != check.Int {
		return b
	}
	pa, pb := a, b
	if pa.Size < 4 {
		pa = check.TInt
	}
	if pb.Size < 4 {
		pb = check.TInt
	}
	switch {
	case pa.Size > pb.Size:
		return pa
	case pb.Size > pa.Size:
		return pb
	case !pa.Signed:
		return pa
	}
	return pb
}

// maxUstackDepth is the deepest user stack ustackdepth counts: the
// kernel's default perf_event_max_stack, beyond which bpf_get_stack
// returns no more frames.
const maxUstackDepth = 127

// ustackdepth counts the frames of the current thread's user stack, the
// frames ustack() prints: the kernel's frame-pointer walk into scratch,
// its length in bytes over 8 (0 when it fails, as in a kernel thread).
func (g *gen) ustackdepth(pos token.Pos) {
	if g.cl != nil && g.cl.Subject != 0 {
		// sched:::on-cpu: the subject is not the running thread, whose
		// stack is all bpf_get_stack can walk here
		g.errorf(pos, "ustackdepth of a thread other than the current one is not supported")
		return
	}
	buf := g.temp(8 * maxUstackDepth)
	ok := g.label("usd")
	g.emit(
		asm.Mov.Reg(asm.R1, provider.RegCtx),
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(buf)),
		asm.Mov.Imm(asm.R3, 8*maxUstackDepth),
		asm.Mov.Imm(asm.R4, 1<<8), // BPF_F_USER_STACK
		asm.FnGetStack.Call(),
		asm.JSGE.Imm(asm.R0, 0, ok),
		asm.Mov.Imm(asm.R0, 0),
		asm.RSh.Imm(asm.R0, 3).WithSymbol(ok),
	)
}
