package codegen

import (
	"encoding/binary"
	"sort"

	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
)

type area int

const (
	inScratch area = iota
	inGlobals
	inSelf
)

// strLoc says where a string value's bytes are.
type strLoc struct {
	area area
	off  int
	size int     // buffer size, a multiple of 8
	lit  *string // set when the string is a constant
}

// temp allocates n bytes (rounded to 8) of clause scratch space.
func (g *gen) temp(n int) int {
	n = roundUp(n, 8)
	off := g.tempBase + g.tempOff
	g.tempOff += n
	return off
}

// zero clears n bytes of scratch at off.
func (g *gen) zero(off, n int) {
	for i := 0; i < n; i += 8 {
		g.emit(provider.StoreImm64(rS, int16(off+i), 0))
	}
}

// addr loads the address of a string's bytes into r.
func (g *gen) addr(r asm.Register, l strLoc) {
	switch l.area {
	case inGlobals:
		g.emit(asm.LoadMapValue(r, 0, uint32(l.off)).WithReference(plan.MapGlobals))
	case inSelf:
		g.emit(asm.Mov.Reg(r, regSelf), asm.Add.Imm(r, int32(l.off)))
	default:
		g.emit(asm.Mov.Reg(r, rS), asm.Add.Imm(r, int32(l.off)))
	}
}

// strExpr makes a string expression's bytes addressable.
func (g *gen) strExpr(e ast.Expr) strLoc {
	t := g.typeOf(e)
	if k, ok := g.info.Consts[e]; ok && k.IsStr {
		n := roundUp(len(k.Str)+1, 8)
		off := g.temp(n)
		g.storeLit(off, n, k.Str)
		s := k.Str
		return strLoc{area: inScratch, off: off, size: n, lit: &s}
	}
	if t.Repr != check.StrBuf {
		// a probe string: its bytes are written out from the probe ID
		n := roundUp(t.Size, 8)
		off := g.temp(n)
		g.probeStrInto(t.Repr, off, n)
		return strLoc{area: inScratch, off: off, size: n}
	}
	if check.IsCharPtr(t) {
		// the string a char * points to
		n := roundUp(g.opts.StrSize, 8)
		off := g.temp(n)
		g.stringofPtr(e, off, n)
		return strLoc{area: inScratch, off: off, size: n}
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v := g.info.Uses[x]; v != nil {
			if loc, ok := g.globals[v]; ok {
				return strLoc{area: inGlobals, off: loc.off, size: roundUp(loc.size, 8)}
			}
		}
	case *ast.SelfVar:
		loc := g.selfs[g.info.Uses[x]]
		return strLoc{area: inSelf, off: loc.off, size: roundUp(loc.size, 8)}
	case *ast.ThisVar:
		loc := g.thiss[g.info.Uses[x]]
		return strLoc{area: inScratch, off: loc.off, size: roundUp(loc.size, 8)}
	case *ast.StringofExpr:
		if g.typeOf(x.X).Kind != check.Pointer { // ktype.go: stringofPtr
			return g.strExpr(x.X)
		}
	case *ast.SelectorExpr:
		if m := g.info.Members[x]; m != nil && !m.InHook && m.Task == nil && !m.Psargs && !m.Fd && !m.Inet && m.Kind == provider.MemberString && m.Size%8 == 0 {
			// the prologue left it NUL-padded in the probe context
			g.needXlate()
			return strLoc{area: inScratch, off: provider.CtxXlate + m.Off, size: m.Size}
		}
	}
	n := roundUp(t.Size, 8)
	off := g.temp(n)
	g.strInto(e, off, n)
	return strLoc{area: inScratch, off: off, size: n}
}

// clipStr ends the string in the n-byte scratch buffer at off within size
// bytes (its type's, strsize for most strings): a string holds at most
// size-1 characters, as in DTrace, where buffers are rounded up to 8 bytes.
func (g *gen) clipStr(off, size, n int) {
	if size > 0 && size < n {
		g.emit(asm.StoreImm(rS, int16(off+size-1), 0, asm.Byte))
	}
}

// storeLit writes s, NUL-padded to n bytes, at scratch offset off.
func (g *gen) storeLit(off, n int, s string) {
	b := make([]byte, n)
	copy(b, s)
	if len(s) >= n {
		b[n-1] = 0
	}
	for i := 0; i < n; i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		lo, hi := int32(uint32(w)), int32(uint32(w>>32))
		g.emit(asm.StoreImm(rS, int16(off+i), int64(lo), asm.Word))
		g.emit(asm.StoreImm(rS, int16(off+i+4), int64(hi), asm.Word))
	}
}

// strInto writes the string e into scratch[off:off+n], NUL-padded.
func (g *gen) strInto(e ast.Expr, off, n int) {
	t := g.typeOf(e)
	if k, ok := g.info.Consts[e]; ok && k.IsStr {
		g.storeLit(off, n, k.Str)
		return
	}
	if t.Repr != check.StrBuf {
		g.probeStrInto(t.Repr, off, n)
		return
	}
	if check.IsCharPtr(t) && g.stringofPtr(e, off, n) {
		return // a char * where a string is wanted: the string it points to
	}
	if g.declStrInto(e, off, n) {
		return // xlate.go: declared structs and translations
	}
	if so, ok := ast.Unparen(e).(*ast.StringofExpr); ok && g.stringofPtr(so.X, off, n) {
		return // ktype.go: the string a pointer points to
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if m := g.info.Members[x]; m != nil && m.Fd {
			g.fdMemberStrInto(x, m, off, n) // fds.go
			return
		}
		if m := g.info.Members[x]; m != nil {
			g.memberStrInto(m, off, n)
			return
		}
	case *ast.Ident:
		if bv := g.info.Builtins[x]; bv != nil && bv.ID == check.BExecname && g.cl != nil && g.cl.Subject != 0 {
			g.zero(off, n)
			g.subjectTask(asm.R3)
			g.emit(
				plan.WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), "task_struct", "comm"),
				asm.Add.Reg(asm.R3, asm.R1),
				asm.Mov.Reg(asm.R1, rS),
				asm.Add.Imm(asm.R1, int32(off)),
				asm.Mov.Imm(asm.R2, int32(min(16, n))),
				asm.FnProbeReadKernelStr.Call(),
			)
			return
		}
		if bv := g.info.Builtins[x]; bv != nil && bv.ID == check.BExecname {
			g.zero(off, n)
			g.emit(
				asm.Mov.Reg(asm.R1, rS),
				asm.Add.Imm(asm.R1, int32(off)),
				asm.Mov.Imm(asm.R2, int32(min(16, n))),
				asm.FnGetCurrentComm.Call(),
			)
			return
		}
	case *ast.CallExpr:
		if b := g.info.Calls[x]; b != nil {
			switch b.Name {
			case "copyinstr":
				g.copyinstr(x, off, n)
				return
			case "stringof":
				if g.stringofPtr(x.Args[0], off, n) {
					return // ktype.go: the string a pointer points to
				}
				g.strInto(x.Args[0], off, n)
				return
			}
			if g.strFunc(b.Name, x, off, n) {
				return
			}
			g.errorf(x.Pos(), "%s( ) is not supported yet", b.Name)
			return
		}
	case *ast.CondExpr:
		f, end := g.label("sf"), g.label("se")
		g.cond0(x.Cond, f)
		g.strInto(x.X, off, n)
		g.emit(asm.Ja.Label(end))
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(f))
		g.strInto(x.Y, off, n)
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
		return
	case *ast.IndexExpr:
		if v := g.info.Uses[ast.Unparen(x.X)]; v != nil && v.Assoc {
			a := g.assoc[v]
			key := g.assocKey(a, x.Indices)
			nf, end := g.label("snf"), g.label("send")
			g.emit(
				asm.LoadMapPtr(asm.R1, 0).WithReference(a.name),
				asm.Mov.Reg(asm.R2, rS),
				asm.Add.Imm(asm.R2, int32(key)),
				asm.FnMapLookupElem.Call(),
				asm.JEq.Imm(asm.R0, 0, nf),
				asm.Mov.Reg(asm.R3, asm.R0),
			)
			g.copyFromReg(off, asm.R3, min(n, a.valSize), n)
			g.emit(asm.Ja.Label(end), asm.Mov.Imm(asm.R0, 0).WithSymbol(nf))
			g.zero(off, n)
			g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
			return
		}
	}
	// strExpr comes back here for a string it has no place for: an
	// expression neither function knows (a string inline, stringof() of an
	// integer) must be an error, not endless recursion.
	if g.strBack[e] {
		g.errorf(e.Pos(), "%s cannot be used as a string yet", describeExpr(e))
		return
	}
	if g.strBack == nil {
		g.strBack = map[ast.Expr]bool{}
	}
	g.strBack[e] = true
	src := g.strExpr(e)
	delete(g.strBack, e)
	if src.area == inScratch && src.off == off {
		return
	}
	g.addr(asm.R3, src)
	g.copyFromReg(off, asm.R3, min(n, src.size), n)
}

// copyFromReg copies m bytes from the address in src to scratch[off], then
// zero-fills up to n and forces a NUL at the end.
func (g *gen) copyFromReg(off int, src asm.Register, m, n int) {
	m = m / 8 * 8
	if m <= 128 {
		for i := 0; i < m; i += 8 {
			g.emit(asm.LoadMem(asm.R0, src, int16(i), asm.DWord), asm.StoreMem(rS, int16(off+i), asm.R0, asm.DWord))
		}
	} else {
		g.emit(
			asm.Mov.Reg(asm.R1, rS),
			asm.Add.Imm(asm.R1, int32(off)),
			asm.Mov.Imm(asm.R2, int32(m)),
			asm.FnProbeReadKernel.Call(),
		)
	}
	for i := m; i < n; i += 8 {
		g.emit(provider.StoreImm64(rS, int16(off+i), 0))
	}
	g.emit(asm.StoreImm(rS, int16(off+n-1), 0, asm.Byte))
}

// copyinstr reads a user string into scratch[off:off+n].
func (g *gen) copyinstr(x *ast.CallExpr, off, n int) {
	if !g.onlyCurrent(x.Pos(), "copyinstr( )") {
		return
	}
	g.zero(off, n)
	var lim int16
	if len(x.Args) > 1 {
		if _, ok := g.info.Consts[ast.Unparen(x.Args[1])]; !ok {
			// a length known when the code runs: at most that many
			// bytes and the NUL, within the buffer
			g.expr(x.Args[1])
			g.emit(asm.Add.Imm(asm.R0, 1))
			g.clamp(asm.R0, 1, int32(min(n, g.typeOf(x).Size)))
			lim = g.push()
		}
	}
	g.expr(x.Args[0])
	g.readInto(off)
	g.emit(
		asm.Mov.Imm(asm.R2, int32(min(n, g.typeOf(x).Size))),
	)
	if lim != 0 {
		g.emit(asm.LoadMem(asm.R2, asm.R10, lim, asm.DWord))
		g.clamp(asm.R2, 1, int32(min(n, g.typeOf(x).Size)))
		g.stack -= 8
	}
	g.emit(asm.FnProbeReadUserStr.Call())
	ok := g.label("cis_ok")
	g.emit(asm.JSGE.Imm(asm.R0, 0, ok))
	g.fault(plan.FaultBadAddr, regTmp, x.Pos())
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
}

// strCompare compiles a comparison with a string operand; jumps to f when
// it is false.
func (g *gen) strCompare(x *ast.BinaryExpr, f string) {
	X, Y := x.X, x.Y
	op := x.Op
	if k, ok := g.info.Consts[X]; ok && k.IsStr {
		X, Y = Y, X
		op = swapCmp(op)
	}
	if k, ok := g.info.Consts[Y]; ok && k.IsStr && (op == token.EQL || op == token.NEQ) {
		g.strEqLit(X, k.Str, op == token.EQL, f)
		return
	}
	a := g.strExpr(X)
	b := g.strExpr(Y)
	n := min(a.size, b.size)
	g.addr(asm.R1, a)
	g.addr(asm.R2, b)
	// Branch-free compare: R0 takes the first difference; R5 is 1 until
	// a difference or the NUL ends the comparison.
	loop, end := g.label("sc_loop"), g.label("sc_end")
	g.emit(
		asm.Mov.Imm(asm.R0, 0),
		asm.Mov.Imm(asm.R5, 1),
		asm.Mov.Imm(regTmp, 0),
		asm.JGE.Imm(regTmp, int32(n), end).WithSymbol(loop),
		asm.LoadMem(asm.R3, asm.R1, 0, asm.Byte),
		asm.LoadMem(asm.R4, asm.R2, 0, asm.Byte),
		asm.Sub.Reg(asm.R4, asm.R3), asm.Neg.Imm(asm.R4, 0), // d = a - b
		// R0 |= d & -live
		asm.Mov.Reg(asm.R3, asm.R5), asm.Neg.Imm(asm.R3, 0), asm.And.Reg(asm.R3, asm.R4), asm.Or.Reg(asm.R0, asm.R3),
		// live &= (d == 0) && (a != 0)
		asm.Mov.Reg(asm.R3, asm.R4), asm.Neg.Imm(asm.R3, 0), asm.Or.Reg(asm.R3, asm.R4), asm.RSh.Imm(asm.R3, 63),
		asm.Xor.Imm(asm.R3, 1), asm.And.Reg(asm.R5, asm.R3),
		asm.LoadMem(asm.R3, asm.R1, 0, asm.Byte), asm.Sub.Imm(asm.R3, 1), asm.RSh.Imm(asm.R3, 63), asm.Xor.Imm(asm.R3, 1),
		asm.And.Reg(asm.R5, asm.R3),
		asm.Add.Imm(asm.R1, 1),
		asm.Add.Imm(asm.R2, 1),
		asm.Add.Imm(regTmp, 1),
		asm.Ja.Label(loop),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end),
	)
	g.emit(notJump[op][1].Imm(asm.R0, 0, f))
}

func swapCmp(op token.Kind) token.Kind {
	switch op {
	case token.LSS:
		return token.GTR
	case token.GTR:
		return token.LSS
	case token.LEQ:
		return token.GEQ
	case token.GEQ:
		return token.LEQ
	}
	return op
}

// strEqLit compares a string with a constant, 8 bytes at a time; eq says
// whether the test is == (else !=). Jumps to f when the test fails.
func (g *gen) strEqLit(e ast.Expr, lit string, eq bool, f string) {
	t := g.typeOf(e)
	if t.Repr != check.StrBuf {
		g.probeStrEq(t.Repr, lit, eq, f)
		return
	}
	loc := g.strExpr(e)
	need := len(lit) + 1
	if need > loc.size {
		// cannot be equal: the buffer is too short to hold it
		if eq {
			g.emit(asm.Ja.Label(f))
		}
		return
	}
	b := make([]byte, roundUp(need, 8))
	copy(b, lit)
	g.addr(asm.R1, loc)
	ne := f
	match := ""
	if !eq {
		match = g.label("lit_eq")
		ne = g.label("lit_ne")
	}
	for i := 0; i < need; i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		g.emit(asm.LoadMem(asm.R0, asm.R1, int16(i), asm.DWord))
		if k := need - i; k < 8 {
			g.emit(asm.LSh.Imm(asm.R0, int32(64-8*k)), asm.RSh.Imm(asm.R0, int32(64-8*k)))
		}
		g.emit(asm.LoadImm(asm.R2, int64(w), asm.DWord), asm.JNE.Reg(asm.R0, asm.R2, ne))
	}
	if !eq {
		g.emit(asm.Ja.Label(f))
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(ne))
		_ = match
	}
}

// probeStrEq compares probefunc (etc.) with a constant by the set of probe
// IDs whose field has that value.
func (g *gen) probeStrEq(r check.StrRepr, lit string, eq bool, f string) {
	var ids []uint32
	for _, p := range g.cl.Probes {
		if probeField(p.Provider, p.Module, p.Function, p.Name, r) == lit {
			ids = append(ids, p.ID)
		}
	}
	g.emit(asm.LoadMem(asm.R0, rS, 0, asm.DWord))
	if eq {
		if len(ids) == 0 {
			g.emit(asm.Ja.Label(f))
			return
		}
		ok := g.label("pe_ok")
		for _, id := range ids {
			g.emit(asm.JEq.Imm(asm.R0, int32(id), ok))
		}
		g.emit(asm.Ja.Label(f), asm.Mov.Imm(asm.R0, 0).WithSymbol(ok))
		return
	}
	for _, id := range ids {
		g.emit(asm.JEq.Imm(asm.R0, int32(id), f))
	}
}

func probeField(prov, mod, fn, name string, r check.StrRepr) string {
	switch r {
	case check.StrProbeProv:
		return prov
	case check.StrProbeMod:
		return mod
	case check.StrProbeFunc:
		return fn
	}
	return name
}

func describeExpr(e ast.Expr) string {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return x.Name
	}
	return "this expression"
}

// probeStrInto writes the probe string r (probefunc, ...) of the probe that
// fired into scratch[off:off+n]: one branch per distinct value among the
// clause's probes, chosen by the probe ID.
func (g *gen) probeStrInto(r check.StrRepr, off, n int) {
	g.zero(off, n)
	if g.cl == nil {
		return
	}
	ids := map[string][]uint32{}
	var vals []string
	for _, p := range g.cl.Probes {
		v := probeField(p.Provider, p.Module, p.Function, p.Name, r)
		if _, ok := ids[v]; !ok {
			vals = append(vals, v)
		}
		ids[v] = append(ids[v], p.ID)
	}
	sort.Strings(vals)
	end := g.label("ps_end")
	g.emit(asm.LoadMem(asm.R0, rS, provider.CtxProbeID, asm.DWord))
	labels := make([]string, len(vals))
	for i, v := range vals {
		labels[i] = g.label("ps")
		for _, id := range ids[v] {
			g.emit(asm.JEq.Imm(asm.R0, int32(id), labels[i]))
		}
	}
	g.emit(asm.Ja.Label(end))
	for i, v := range vals {
		b := make([]byte, roundUp(min(len(v)+1, n), 8))
		if copy(b, v) == len(b) {
			b[len(b)-1] = 0 // cut at n: keep the NUL
		}
		for j := 0; j < len(b); j += 8 {
			w := binary.LittleEndian.Uint64(b[j:])
			ins := asm.LoadImm(asm.R1, int64(w), asm.DWord)
			if j == 0 {
				ins = ins.WithSymbol(labels[i])
			}
			g.emit(ins, asm.StoreMem(rS, int16(off+j), asm.R1, asm.DWord))
		}
		g.emit(asm.Ja.Label(end))
	}
	g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol(end))
}
