package codegen

// member.go reads the members of provider structures (args[0]->b_bcount,
// args->prev_comm) and the variables that name a probe's subject thread
// when it is not the current one (sched:::on-cpu).
//
// Members live either in the hook's own record (a tracepoint's raw record,
// reached through RegCtx, which stays the context for the whole program) or
// in the probe context's translated area, which the provider's prologue
// filled.

import (
	"github.com/cilium/ebpf/asm"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/token"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/provider"
)

// memberInt loads an integer member into R0.
func (g *gen) memberInt(x *ast.SelectorExpr) {
	if g.declMemberInt(x) {
		return // xlate.go: declared structs and translations
	}
	m := g.info.Members[x]
	if m != nil && m.Fd {
		g.fdMemberInt(x, m) // fds.go
		return
	}
	if m != nil && m.Task != nil && m.Kind == provider.MemberInt {
		g.taskMemberInt(m)
		return
	}
	if m == nil || m.Kind != provider.MemberInt {
		g.errorf(x.Pos(), "member %s cannot be used as an integer", x.Sel)
		return
	}
	size := m.Size
	if size != 1 && size != 2 && size != 4 && size != 8 {
		g.errorf(x.Pos(), "member %s of %d bytes cannot be used as an integer", x.Sel, size)
		return
	}
	switch {
	case !m.InHook:
		g.needXlate()
		g.emit(asm.LoadMem(asm.R0, rS, int16(provider.CtxXlate+m.Off), provider.SizeOf(size)))
	case m.Off%size == 0:
		g.emit(asm.LoadMem(asm.R0, provider.RegCtx, int16(m.Off), provider.SizeOf(size)))
	default:
		// an unaligned member: the context allows aligned loads only
		g.emit(asm.Mov.Reg(asm.R3, provider.RegCtx), asm.Add.Imm(asm.R3, int32(m.Off)))
		g.readKernelR3(size)
	}
	if size < 8 {
		g.normalize(asm.R0, &check.Type{Kind: check.Int, Size: size, Signed: m.Signed})
	}
}

// memberStrInto writes a string member into scratch[off:off+n].
func (g *gen) memberStrInto(m *provider.Member, off, n int) {
	if m.Inet {
		g.inetMemberInto(m, off, n) // inetmember.go
		return
	}
	g.zero(off, n)
	switch {
	case m.Psargs:
		g.psargsInto(off, n)
		return
	case m.Task != nil:
		g.taskMemberAddr(m)
		g.emit(
			asm.Mov.Reg(asm.R1, rS),
			asm.Add.Imm(asm.R1, int32(off)),
			asm.Mov.Imm(asm.R2, int32(min(n, m.Size))),
			asm.FnProbeReadKernelStr.Call(),
		)
		return
	}
	switch {
	case !m.InHook:
		g.needXlate()
		g.emit(asm.Mov.Reg(asm.R3, rS), asm.Add.Imm(asm.R3, int32(provider.CtxXlate+m.Off)))
		g.emit(asm.Mov.Imm(asm.R2, int32(min(n, m.Size))))
	case m.Kind == provider.MemberDataLoc:
		// a u32: the string's offset in the record (low 16 bits) and
		// its length (high 16 bits)
		g.emit(
			asm.LoadMem(asm.R3, provider.RegCtx, int16(m.Off), asm.Word),
			asm.And.Imm(asm.R3, 0xffff),
			asm.Add.Reg(asm.R3, provider.RegCtx),
			asm.Mov.Imm(asm.R2, int32(n)),
		)
	default:
		g.emit(asm.Mov.Reg(asm.R3, provider.RegCtx), asm.Add.Imm(asm.R3, int32(m.Off)))
		g.emit(asm.Mov.Imm(asm.R2, int32(min(n, m.Size))))
	}
	g.emit(
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.FnProbeReadKernelStr.Call(),
	)
}

// subjectTask puts the task_struct pointer of the clause's subject thread
// in r: an argument of the BTF tracepoint (a trusted pointer the verifier
// lets task storage use), or the current task.
func (g *gen) subjectTask(r asm.Register) {
	if g.cl != nil && g.cl.Subject == -1 {
		g.errorf(g.cl.Node.Pos(), "the probes of this clause fire for different threads (sched:::on-cpu fires for the incoming one, io:::start for the one that made the request): split the clause")
		return
	}
	if g.cl != nil && g.cl.Subject == probe.SubjectRequest {
		g.emit(asm.LoadMem(r, asm.R10, reqSubjSlot, asm.DWord)) // reqsubj.go
		return
	}
	if g.cl != nil && g.cl.Subject != 0 {
		g.emit(asm.LoadMem(r, provider.RegCtx, int16(8*(g.cl.Subject-1)), asm.DWord))
		return
	}
	g.emit(asm.FnGetCurrentTaskBtf.Call())
	if r != asm.R0 {
		g.emit(asm.Mov.Reg(r, asm.R0))
	}
}

// requestOnly refuses, at pos, what (read from the running thread's
// kernel stack) in a clause whose probes fire for the thread that made a block
// request (io:::start): the probe runs where the request is issued, often
// in another thread. (stack() and ustack() there are the maker's, saved
// where it made the request: reqsubj.go.)
func (g *gen) requestOnly(pos token.Pos, what string) bool {
	if g.cl == nil || g.cl.Subject != probe.SubjectRequest {
		return true
	}
	g.errorf(pos, "%s is not supported in io:::start: it runs where the request is issued, often in another thread than the one that made it", what)
	return false
}

// onlyCurrent refuses, at pos, what (an action or subroutine that acts on
// the running thread: its signals, its user memory) in a clause whose
// probes fire for another thread: sched:::on-cpu runs in the thread going
// off CPU, so it would signal, or read the memory of, the wrong one.
func (g *gen) onlyCurrent(pos token.Pos, what string) bool {
	if g.cl == nil || g.cl.Subject == 0 {
		return true
	}
	g.errorf(pos, "%s is not supported here: this probe fires for another thread than the one it runs in (sched:::on-cpu runs in the thread going off CPU, io:::start in whichever thread issues the request), whose memory or signals it would use", what)
	return false
}

// subjectBuiltin loads pid, tid, ppid, uid, gid, vtimestamp or curthread
// of the subject thread.
func (g *gen) subjectBuiltin(id check.BuiltinVarID) {
	g.subjectTask(asm.R3)
	switch id {
	case check.BCurthread, check.BCurpsinfo, check.BCurlwpsinfo:
		g.emit(asm.Mov.Reg(asm.R0, asm.R3))
	case check.BPid:
		g.taskField(asm.R3, "tgid", 4)
	case check.BTid:
		g.taskField(asm.R3, "pid", 4)
	case check.BPpid:
		g.taskField(asm.R3, "real_parent", 8)
		g.taskField(asm.R0, "tgid", 4)
	case check.BUid, check.BGid: // as bpf_get_current_uid_gid: the task's cred, in the initial namespace
		g.taskField(asm.R3, "cred", 8)
		g.kernField(asm.R0, "cred", map[check.BuiltinVarID]string{check.BUid: "uid", check.BGid: "gid"}[id], 4)
	case check.BVtimestamp:
		g.taskField(asm.R3, "se.sum_exec_runtime", 8)
	}
}

// needXlate tells the prologue that translated arguments are read.
func (g *gen) needXlate() {
	for i := range g.needs.Args {
		g.needs.Args[i] = true
	}
}

// deferredUstackDepth is the deepest ustack() of the clauses that fire for
// another thread than the current one; 0 when there is none.
func deferredUstackDepth(info *check.Info) int {
	depth := 0
	for _, cl := range info.Clauses {
		if cl.Subject <= 0 {
			continue
		}
		visit := func(e ast.Expr) bool {
			if c, ok := e.(*ast.CallExpr); ok {
				if b := info.Calls[c]; b != nil && b.Name == "ustack" {
					if t := info.Types[c]; t != nil {
						depth = max(depth, stackDepth(t))
					}
				}
			}
			return true
		}
		if cl.Node.Pred != nil {
			ast.Inspect(cl.Node.Pred, visit)
		}
		walkStmts(cl.Node.Body, func(e ast.Expr) { ast.Inspect(e, visit) })
	}
	return depth
}

func hasSubject(probes []*provider.Probe) bool {
	for _, p := range probes {
		if p.Subject > 0 {
			return true
		}
	}
	return false
}

// captureDeferredUstack saves the current (outgoing) thread's user stack
// in its self-> storage: a thread's user stack does not change while it is
// off CPU, so this is the stack ustack() shows when it comes back on.
func (g *gen) captureDeferredUstack() {
	done, ok := g.label("defer_done"), g.label("defer_ok")
	slot := int32(g.deferStack.off)
	g.emit(
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R2, asm.R0),
		asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapSelf),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 1), // BPF_LOCAL_STORAGE_GET_F_CREATE
		asm.FnTaskStorageGet.Call(),
		asm.JEq.Imm(asm.R0, 0, done),
		asm.Mov.Reg(regSelf, asm.R0),
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.StoreMem(regSelf, int16(slot), asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R1, provider.RegCtx),
		asm.Mov.Reg(asm.R2, regSelf),
		asm.Add.Imm(asm.R2, slot+16),
		asm.Mov.Imm(asm.R3, int32(8*g.deferDepth)),
		asm.Mov.Imm(asm.R4, 1<<8), // BPF_F_USER_STACK
		asm.FnGetStack.Call(),
		asm.JSGE.Imm(asm.R0, 0, ok),
		asm.Mov.Imm(asm.R0, 0),
	)
	g.emit(
		asm.RSh.Imm(asm.R0, 3).WithSymbol(ok),
		asm.StoreMem(regSelf, int16(slot+8), asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(done),
	)
}

// deferredUstack copies the subject thread's saved user stack (pid, frame
// count, frames) into the stack field at off.
func (g *gen) deferredUstack(f plan.Field, off int) {
	slot := int32(g.deferStack.off)
	g.emit(
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(f.Size)),
		asm.Mov.Reg(asm.R3, regSelf),
		asm.Add.Imm(asm.R3, slot),
		asm.FnProbeReadKernel.Call(),
	)
	ok := g.label("dstk")
	g.emit(
		asm.LoadMem(asm.R0, rS, int16(off+8), asm.DWord),
		asm.JLE.Imm(asm.R0, int32(f.Depth), ok),
		asm.Mov.Imm(asm.R0, int32(f.Depth)),
		asm.StoreMem(rS, int16(off+8), asm.R0, asm.DWord).WithSymbol(ok),
	)
}

// taskMemberAddr leaves in R3 the kernel address of a member of
// curpsinfo or curlwpsinfo: the fields of m.Task followed from the
// subject thread's task_struct. A NULL pointer on the way gives the
// address of a field of NULL, which reads as a fault: zero.
func (g *gen) taskMemberAddr(m *provider.Member) {
	g.subjectTask(asm.R3)
	for i, st := range m.Task {
		if i < len(m.Task)-1 {
			g.kernField(asm.R3, st.Struct, st.Field, 8)
			g.emit(asm.Mov.Reg(asm.R3, asm.R0))
			continue
		}
		g.emit(
			plan.WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), st.Struct, st.Field),
			asm.Add.Reg(asm.R3, asm.R1),
		)
	}
}

// taskMemberInt loads an integer member of curpsinfo or curlwpsinfo.
func (g *gen) taskMemberInt(m *provider.Member) {
	g.taskMemberAddr(m)
	size := m.Size
	if m.Dmodel {
		size = 8 // unsigned long flags
	}
	g.readKernelR3(size)
	if m.Dmodel {
		// PR_MODEL_ILP32 (1) when bit 0 is set, else PR_MODEL_LP64 (2)
		g.emit(asm.And.Imm(asm.R0, 1), asm.Mov.Reg(asm.R1, asm.R0), asm.Mov.Imm(asm.R0, 2), asm.Sub.Reg(asm.R0, asm.R1))
		return
	}
	if m.Size < 8 {
		g.normalize(asm.R0, &check.Type{Kind: check.Int, Size: m.Size, Signed: m.Signed})
	}
}

// kernField reads size bytes of field path of a kernel structure at the
// address in r into R0 (0 when the read faults).
func (g *gen) kernField(r asm.Register, structName, path string, size int) {
	g.emit(
		asm.Mov.Reg(asm.R3, r),
		plan.WithFieldOffset(asm.LoadImm(asm.R1, 0, asm.DWord), structName, path),
		asm.Add.Reg(asm.R3, asm.R1),
	)
	g.readKernelR3(size)
}

// readKernelR3 reads size bytes of kernel memory at the address in R3
// into R0, through a stack slot below those in use (0 when the read
// faults). R1-R5 are clobbered.
func (g *gen) readKernelR3(size int) {
	slot := int16(-(g.stack + 8))
	g.emit(
		provider.StoreImm64(asm.R10, slot, 0),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, int32(slot)),
		asm.Mov.Imm(asm.R2, int32(size)),
		asm.FnProbeReadKernel.Call(),
		asm.LoadMem(asm.R0, asm.R10, slot, provider.SizeOf(size)),
	)
}

// psargsInto writes curpsinfo->pr_psargs into scratch[off:off+n] (zeroed):
// the first n-1 bytes of the current process's arguments (mm->arg_start
// to arg_end), the NULs between them made spaces, as DTrace shows them. A
// kernel thread has none: the string is empty.
func (g *gen) psargsInto(off, n int) {
	if g.cl != nil && g.cl.Subject != 0 {
		g.errorf(g.cl.Node.Pos(), "curpsinfo->pr_psargs: the arguments of a thread other than the current one cannot be read here")
		return
	}
	end, lenOK := g.label("psargs_end"), g.label("psargs_len")
	g.stack += 16
	start, length := int16(-g.stack+8), int16(-g.stack)
	g.emit(asm.FnGetCurrentTask.Call())
	g.kernField(asm.R0, "task_struct", "mm", 8)
	g.emit(asm.JEq.Imm(asm.R0, 0, end), asm.StoreMem(asm.R10, start, asm.R0, asm.DWord))
	g.kernField(asm.R0, "mm_struct", "arg_end", 8)
	g.emit(asm.StoreMem(asm.R10, length, asm.R0, asm.DWord), asm.LoadMem(asm.R0, asm.R10, start, asm.DWord))
	g.kernField(asm.R0, "mm_struct", "arg_start", 8)
	g.emit(
		asm.LoadMem(asm.R2, asm.R10, length, asm.DWord),
		asm.Sub.Reg(asm.R2, asm.R0),
		asm.JSLE.Imm(asm.R2, 0, end),
		asm.JLE.Imm(asm.R2, int32(n-1), lenOK),
		asm.Mov.Imm(asm.R2, int32(n-1)),
		asm.StoreMem(asm.R10, length, asm.R2, asm.DWord).WithSymbol(lenOK),
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.FnProbeReadUser.Call(),
		asm.JNE.Imm(asm.R0, 0, end),
		asm.LoadMem(asm.R2, asm.R10, length, asm.DWord),
	)
	// NULs before the last byte read separate arguments: spaces.
	for i := 0; i < n-2; i++ {
		skip := g.label("psargs_skip")
		g.emit(
			asm.JLE.Imm(asm.R2, int32(i+1), end),
			asm.LoadMem(asm.R1, rS, int16(off+i), asm.Byte),
			asm.JNE.Imm(asm.R1, 0, skip),
			asm.StoreImm(rS, int16(off+i), ' ', asm.Byte),
			asm.Mov.Reg(asm.R1, asm.R1).WithSymbol(skip),
		)
	}
	g.emit(asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(end))
	g.stack -= 16
}
