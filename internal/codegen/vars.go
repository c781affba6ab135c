package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/value"
)

func (g *gen) newAssoc(v *check.Var, n int) *assocMap {
	a := &assocMap{name: "assoc_" + v.Name}
	a.keys, a.keySize = keyFields(v.Keys)
	a.valSize = roundUp(varSize(v.Type), 8)
	if v.Scope == check.Self {
		// thread-local: keyed by the thread, then the tuple
		a.name, a.self = "self_"+v.Name, true
		for i := range a.keys {
			a.keys[i].Offset += 8
		}
		a.keySize += 8
	}
	return a
}

// assocKey writes the key of an associative array element into scratch
// and returns its offset: the tuple, after the thread ID for self->.
func (g *gen) assocKey(a *assocMap, idx []ast.Expr) int {
	key := g.buildKey(idx, a.keys, a.keySize)
	if a.self {
		g.builtin(check.LookupBuiltinVar("tid"), token.Pos{})
		g.emit(asm.StoreMem(rS, int16(key), asm.R0, asm.DWord))
	}
	return key
}

// keyFields lays out a key tuple: integers in 8-byte slots (their size
// as the checker gives it: 8 for associative arrays, the type's for
// aggregations), strings their buffer, probe strings the probe ID, stacks
// their frames.
func keyFields(ts []*check.Type) ([]plan.Field, int) {
	var fs []plan.Field
	off := 0
	for _, t := range ts {
		f := fieldFor(t)
		f.Offset = off
		off += roundUp(f.Size, 8)
		fs = append(fs, f)
	}
	if off == 0 {
		off = 8
	}
	return fs, off
}

// fieldFor describes how a value of type t is recorded.
func fieldFor(t *check.Type) plan.Field {
	switch t.Kind {
	case check.String:
		switch t.Repr {
		case check.StrProbeProv:
			return plan.Field{Kind: plan.FProbeProv, Size: 4}
		case check.StrProbeMod:
			return plan.Field{Kind: plan.FProbeMod, Size: 4}
		case check.StrProbeFunc:
			return plan.Field{Kind: plan.FProbeFunc, Size: 4}
		case check.StrProbeName:
			return plan.Field{Kind: plan.FProbeName, Size: 4}
		}
		return plan.Field{Kind: plan.FString, Size: roundUp(t.Size, 8)}
	case check.Stack:
		if t.User {
			return plan.Field{Kind: plan.FUStack, Size: stackFieldSize(t), Depth: stackDepth(t)}
		}
		return plan.Field{Kind: plan.FKStack, Size: stackFieldSize(t), Depth: stackDepth(t)}
	case check.Sym:
		switch t.SymK {
		case check.SymKernel, check.SymMod:
			return plan.Field{Kind: plan.FSym, Size: 8, SymKind: symValueKind(t.SymK)}
		}
		return plan.Field{Kind: plan.FUSym, Size: 16, SymKind: symValueKind(t.SymK)}
	case check.Struct:
		// its bytes; of 1, 2, 4 or 8 bytes, an integer of that size, as
		// DTrace's dt_print_datum goes by the size alone
		switch t.Size {
		case 1, 2, 4, 8:
			return plan.Field{Kind: plan.FInt, Size: t.Size, Signed: t.Size >= 4}
		}
		return plan.Field{Kind: plan.FBytes, Size: t.Size}
	}
	size := t.Size
	if t.Kind == check.Pointer || size == 0 {
		size = 8
	}
	return plan.Field{Kind: plan.FInt, Size: size, Signed: t.Signed}
}

// store writes R0 to an integer lvalue.
func (g *gen) store(lv ast.Expr) {
	switch x := ast.Unparen(lv).(type) {
	case *ast.Ident:
		v := g.info.Uses[x]
		loc, ok := g.globals[v]
		if !ok {
			g.errorf(x.Pos(), "%s is not assignable", x.Name)
			return
		}
		g.emit(asm.LoadMapValue(asm.R1, 0, uint32(loc.off)).WithReference(plan.MapGlobals),
			asm.StoreMem(asm.R1, 0, asm.R0, asm.DWord))
	case *ast.SelfVar:
		g.emit(asm.StoreMem(regSelf, int16(g.selfs[g.info.Uses[x]].off), asm.R0, asm.DWord))
	case *ast.ThisVar:
		g.emit(asm.StoreMem(rS, int16(g.thiss[g.info.Uses[x]].off), asm.R0, asm.DWord))
	case *ast.IndexExpr:
		if g.arrayElem(x) {
			g.arrayStore(x) // varray.go
			return
		}
		if g.isMemberLhs(x) {
			g.svarStore(x) // svar.go
			return
		}
		if v := g.info.Uses[ast.Unparen(x.X)]; (v == nil || !v.Assoc) && g.isScratchLhs(x) {
			g.scratchStore(x) // svar.go: p[i]
			return
		}
		g.assocStore(x, func(val int) {
			g.emit(asm.StoreMem(rS, int16(val), asm.R0, asm.DWord))
		}, true)
	case *ast.SelectorExpr:
		if g.isMemberLhs(x) {
			g.svarStore(x) // svar.go
			return
		}
		if g.isScratchLhs(x) {
			g.scratchStore(x) // svar.go: p->m
			return
		}
		g.errorf(lv.Pos(), "expression is not assignable")
	case *ast.UnaryExpr:
		if g.isScratchLhs(x) {
			g.scratchStore(x) // svar.go: *p
			return
		}
		g.errorf(lv.Pos(), "expression is not assignable")
	default:
		g.errorf(lv.Pos(), "expression is not assignable")
	}
}

// assocStore writes an associative array element. fill stores the value
// (from R0 when isInt) at the given scratch offset; an integer 0 deletes
// the element, as DTrace frees it.
func (g *gen) assocStore(x *ast.IndexExpr, fill func(val int), isInt bool) {
	v := g.info.Uses[ast.Unparen(x.X)]
	a := g.assoc[v]
	var keep int16
	if isInt {
		keep = g.push()
	}
	key := g.assocKey(a, x.Indices)
	val := g.temp(a.valSize)
	if isInt {
		g.pop(asm.R0, keep)
	}
	fill(val)
	del, end := g.label("adel"), g.label("aend")
	if isInt {
		g.emit(asm.JEq.Imm(asm.R0, 0, del))
	}
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(a.name),
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.Mov.Reg(asm.R3, rS),
		asm.Add.Imm(asm.R3, int32(val)),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnMapUpdateElem.Call(),
	)
	ok := g.label("aok")
	g.emit(asm.JEq.Imm(asm.R0, 0, ok))
	g.stat(plan.StatDynDrops)
	g.emit(asm.Ja.Label(ok))
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(a.name).WithSymbol(del),
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapDeleteElem.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(ok),
	)
	if isInt {
		g.emit(asm.LoadMem(asm.R0, rS, int16(val), asm.DWord).WithSymbol(end))
	}
}

// assign compiles an assignment; an integer result is left in R0.
func (g *gen) assign(x *ast.AssignExpr) {
	lt := g.typeOf(x.X)
	if v := g.info.Uses[ast.Unparen(x.X)]; v != nil && v.Type != nil {
		lt = v.Type
	}
	if lt.Kind == check.Struct {
		g.assignStruct(x, lt) // svar.go
		return
	}
	if lt.Kind == check.String {
		if g.isMemberLhs(x.X) {
			g.svarStoreStr(x.X, x.Y) // svar.go
			return
		}
		g.assignString(x, lt)
		return
	}
	if lt.Kind == check.Stack || lt.Kind == check.Sym {
		g.errorf(x.OpPos, "variables of type %s are not supported yet", lt)
		return
	}
	if x.Op == token.ASSIGN {
		g.expr(x.Y)
	} else {
		g.arith(x.Op.AssignOp(), x.X, x.Y, arithType(lt, g.typeOf(x.Y)), x.OpPos)
	}
	g.normalize(asm.R0, lt)
	g.store(x.X)
}

// assignString stores a string into a variable.
func (g *gen) assignString(x *ast.AssignExpr, lt *check.Type) {
	lhs := ast.Unparen(x.X)
	n := roundUp(lt.Size, 8)
	switch l := lhs.(type) {
	case *ast.ThisVar:
		g.strInto(x.Y, g.thiss[g.info.Uses[l]].off, n)
		g.clipStr(g.thiss[g.info.Uses[l]].off, lt.Size, n)
	case *ast.Ident, *ast.SelfVar:
		tmp := g.temp(n)
		g.strInto(x.Y, tmp, n)
		g.clipStr(tmp, lt.Size, n)
		var dst strLoc
		if id, ok := l.(*ast.Ident); ok {
			dst = strLoc{area: inGlobals, off: g.globals[g.info.Uses[id]].off}
		} else {
			dst = strLoc{area: inSelf, off: g.selfs[g.info.Uses[l]].off}
		}
		g.addr(asm.R1, dst)
		for i := 0; i < n; i += 8 {
			g.emit(asm.LoadMem(asm.R0, rS, int16(tmp+i), asm.DWord), asm.StoreMem(asm.R1, int16(i), asm.R0, asm.DWord))
		}
	case *ast.IndexExpr:
		g.assocStore(l, func(val int) { g.strInto(x.Y, val, n); g.clipStr(val, lt.Size, n) }, false)
	default:
		g.errorf(x.Pos(), "cannot assign a string here")
	}
}

// buildKey writes a key tuple into scratch and returns its offset.
func (g *gen) buildKey(idx []ast.Expr, fields []plan.Field, size int) int {
	key := g.temp(size)
	for i, e := range idx {
		g.fieldInto(e, fields[i], key+fields[i].Offset)
	}
	if len(idx) == 0 {
		g.emit(provider.StoreImm64(rS, int16(key), 0))
	}
	return key
}

// fieldInto evaluates e and writes it as field f at scratch offset off.
func (g *gen) fieldInto(e ast.Expr, f plan.Field, off int) {
	if t := g.typeOf(e); t.Kind == check.Struct {
		if g.info.Xlates[ast.Unparen(e)] != nil {
			g.expr(e) // a translation whole: xlate.go says how it may be used
			return
		}
		// a struct's bytes (svar.go)
		g.zero(off, roundUp(max(f.Size, t.Size), 8))
		g.structFrom(e, t.Size, func(string) { g.emit(asm.Mov.Reg(asm.R0, rS), asm.Add.Imm(asm.R0, int32(off))) })
		return
	}
	switch f.Kind {
	case plan.FInt:
		g.expr(e)
		if f.Size < 8 {
			// the whole slot, zero-extended: keys are compared as bytes
			shift := int32(64 - 8*f.Size)
			g.emit(asm.LSh.Imm(asm.R0, shift), asm.RSh.Imm(asm.R0, shift))
		}
		g.emit(asm.StoreMem(rS, int16(off), asm.R0, asm.DWord))
	case plan.FString:
		g.strInto(e, off, f.Size)
		if t := g.typeOf(e); t.Kind == check.String {
			// DTrace's strings are strsize bytes, constants too
			g.clipStr(off, min(t.Size, g.opts.StrSize), f.Size)
		}
	case plan.FProbeProv, plan.FProbeMod, plan.FProbeFunc, plan.FProbeName:
		g.emit(asm.LoadMem(asm.R0, rS, 0, asm.DWord), asm.StoreMem(rS, int16(off), asm.R0, asm.DWord))
	case plan.FKStack, plan.FUStack:
		g.stackInto(e, f, off)
	case plan.FSym:
		g.expr(symArg(e))
		g.emit(asm.StoreMem(rS, int16(off), asm.R0, asm.DWord))
	case plan.FUSym:
		g.expr(symArg(e))
		g.emit(asm.StoreMem(rS, int16(off+8), asm.R0, asm.DWord))
		if g.cl != nil && g.cl.Subject != 0 {
			g.subjectBuiltin(check.BPid) // named in the subject's address space
		} else {
			g.emit(asm.FnGetCurrentPidTgid.Call(), asm.RSh.Imm(asm.R0, 32))
		}
		g.emit(asm.StoreMem(rS, int16(off), asm.R0, asm.DWord))
	default:
		g.errorf(e.Pos(), "cannot record this value")
	}
}

func symArg(e ast.Expr) ast.Expr {
	if c, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(c.Args) == 1 {
		return c.Args[0]
	}
	return e
}

// stackInto captures a stack into scratch at off: a u64 frame count (after
// a u64 pid for user stacks), then Depth addresses, zero-filled.
func (g *gen) stackInto(e ast.Expr, f plan.Field, off int) {
	g.zero(off, f.Size)
	flags := int32(0)
	buf := off + 8
	if g.cl != nil && g.cl.Subject == probe.SubjectRequest {
		g.requestStack(f, off) // reqsubj.go: the maker's, saved where it made the request
		return
	}
	if f.Kind == plan.FUStack && g.cl != nil && g.cl.Subject > 0 && g.deferDepth > 0 {
		g.deferredUstack(f, off)
		return
	}
	if f.Kind == plan.FKStack && g.cl != nil && g.cl.Subject != 0 {
		g.subjectKernelStack(f, buf)
		return
	}
	if f.Kind == plan.FUStack {
		flags = 1 << 8 // BPF_F_USER_STACK
		buf = off + 16
		g.emit(asm.FnGetCurrentPidTgid.Call(), asm.RSh.Imm(asm.R0, 32), asm.StoreMem(rS, int16(off), asm.R0, asm.DWord))
	}
	g.emit(
		asm.Mov.Reg(asm.R1, provider.RegCtx),
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(buf)),
		asm.Mov.Imm(asm.R3, int32(f.Size-(buf-off))),
		asm.Mov.Imm(asm.R4, flags),
		asm.FnGetStack.Call(),
	)
	ok := g.label("stk")
	g.emit(asm.JSGE.Imm(asm.R0, 0, ok), asm.Mov.Imm(asm.R0, 0))
	g.emit(asm.RSh.Imm(asm.R0, 3).WithSymbol(ok), asm.StoreMem(rS, int16(buf-8), asm.R0, asm.DWord))
}

// subjectKernelStack captures the kernel stack of a clause's subject thread
// when it is not the running one (sched:::on-cpu: the incoming thread, not
// yet running, whose saved stack is where it went off CPU) with
// bpf_get_task_stack, into buf with its frame count before it.
func (g *gen) subjectKernelStack(f plan.Field, buf int) {
	g.subjectTask(asm.R1)
	g.emit(
		asm.Mov.Reg(asm.R2, rS),
		asm.Add.Imm(asm.R2, int32(buf)),
		asm.Mov.Imm(asm.R3, int32(f.Size-8)),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnGetTaskStack.Call(),
	)
	ok := g.label("tstk")
	g.emit(asm.JSGE.Imm(asm.R0, 0, ok), asm.Mov.Imm(asm.R0, 0))
	g.emit(asm.RSh.Imm(asm.R0, 3).WithSymbol(ok), asm.StoreMem(rS, int16(buf-8), asm.R0, asm.DWord))
}

func symValueKind(k check.SymKind) value.Kind {
	switch k {
	case check.SymUser:
		return value.USym
	case check.SymMod:
		return value.Mod
	case check.SymUMod:
		return value.UMod
	case check.SymUAddr:
		return value.UAddr
	}
	return value.Sym
}
