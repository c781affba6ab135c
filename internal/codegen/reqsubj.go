package codegen

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/provider"
)

// A probe whose Subject is probe.SubjectRequest (io:::start, on the
// block_rq_issue tracepoint) fires for the thread that made the block
// request, not for the one dispatching the queue it runs in. That thread
// is known where the request is made: the block_io_start tracepoint, once
// per request, in the submitting thread (bios merged into the request
// later keep its maker, as DTrace's io:::start fires once per buf in the
// thread that called bdev_strategy).
//
// Companion programs keep a reference to each request's maker in a hash
// map keyed by the request's address (reqSubjMap): block_io_start stores
// it (bpf_task_acquire into a kptr field, so the task_struct outlives its
// thread), and block_rq_merge (a request merged into another and freed)
// and block_rq_complete delete the entry, which releases the reference.
// The probe's program looks the request up before anything else: with no
// entry (made before tracing began, or by the block layer itself, as the
// cache flushes of a flush sequence are) or one it has fired for already
// (the driver requeued the request and issues it again), the probe does
// not fire; otherwise the hook's last program marks the entry fired, and
// the maker's task pointer, an RCU-protected pointer the verifier accepts
// wherever a task_struct is taken, is kept in a stack slot that every
// clause of the program leaves alone (reqSubjSlot), where subjectTask
// finds it.
//
// stack() and ustack() in such a clause are the maker's stacks where it
// made the request (as DTrace's are where bdev_strategy was called): when
// a clause asks for them, block_io_start saves them in the entry (the
// deepest any clause asks for, with kstackSlack frames for the tracer's
// own, which the consumer drops as it does from any kernel stack), and the
// clause copies them from there; the entry's address is kept at
// reqEntrySlot.
//
// An entry that cannot be stored (the map full) is counted as a dynamic
// variable drop: that request then does not fire the probe.

const (
	reqSubjMap   = "reqsubj"
	reqZeroMap   = "reqzero" // an array of one zero value, stored as a new entry's when it is too large for the stack
	reqSubjSlot  = -16       // fp-16: the maker's task_struct, in programs with a request subject
	reqEntrySlot = -24       // fp-24: its entry
	reqSubjValue = 16        // struct { struct task_struct __kptr *task; u64 fired; kstack; ustack }
	reqSubjMax   = 1 << 14   // requests made and not completed at once, over every device
)

// reqSubjHooks are the companion programs' tracepoints.
var reqSubjHooks = []string{"block_io_start", "block_rq_merge", "block_rq_complete"}

func hasRequestSubject(probes []*provider.Probe) bool {
	for _, p := range probes {
		if p.Subject == probe.SubjectRequest {
			return true
		}
	}
	return false
}

// reqStacks sets g.reqKStack and g.reqUStack: the sizes of the largest
// kernel and user stack fields of the clauses whose subject is a request's
// maker (0 when there is none).
func (g *gen) reqStacks() {
	g.reqKStack, g.reqUStack = 0, 0
	for _, cl := range g.info.Clauses {
		if cl.Subject != probe.SubjectRequest {
			continue
		}
		visit := func(e ast.Expr) bool {
			if c, ok := e.(*ast.CallExpr); ok {
				if t := g.info.Types[c]; t != nil && t.Kind == check.Stack {
					if t.User {
						g.reqUStack = max(g.reqUStack, stackFieldSize(t))
					} else {
						g.reqKStack = max(g.reqKStack, stackFieldSize(t))
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
}

// reqValueSize is the size of an entry of reqSubjMap.
func (g *gen) reqValueSize() int { return reqSubjValue + g.reqKStack + g.reqUStack }

// requestStack copies the maker's saved stack into the stack field f at
// off: its count clamped to the field's room.
func (g *gen) requestStack(f plan.Field, off int) {
	src, head := reqSubjValue, 8 // kernel: count, frames
	if f.Kind == plan.FUStack {
		src, head = reqSubjValue+g.reqKStack, 16 // user: pid, count, frames
		g.emit(
			asm.LoadMem(asm.R1, asm.R10, reqEntrySlot, asm.DWord),
			asm.LoadMem(asm.R0, asm.R1, int16(src), asm.DWord),
			asm.StoreMem(rS, int16(off), asm.R0, asm.DWord),
		)
	}
	room := (f.Size - head) / 8
	ok := g.label("rstk")
	g.emit(
		asm.LoadMem(asm.R1, asm.R10, reqEntrySlot, asm.DWord),
		asm.LoadMem(asm.R0, asm.R1, int16(src+head-8), asm.DWord),
		asm.JLE.Imm(asm.R0, int32(room), ok),
		asm.Mov.Imm(asm.R0, int32(room)),
		asm.StoreMem(rS, int16(off+head-8), asm.R0, asm.DWord).WithSymbol(ok),
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.Add.Imm(asm.R3, int32(src+head)),
		asm.Mov.Reg(asm.R1, rS),
		asm.Add.Imm(asm.R1, int32(off+head)),
		asm.Mov.Imm(asm.R2, int32(f.Size-head)),
		asm.FnProbeReadKernel.Call(),
	)
}

// requestSubject looks up the request in argument 0 of the hook and leaves
// its maker's task pointer at reqSubjSlot, or leaves the program when the
// probe must not fire for it. The hook's last program (mark) marks the
// entry fired. (Not block_rq_requeue: a driver may requeue a request it
// has not started, which block_rq_issue has not seen.)
func (g *gen) requestSubject(mark bool) {
	g.emit(
		asm.LoadMem(asm.R1, provider.RegCtx, 0, asm.DWord),
		asm.StoreMem(asm.R10, reqSubjSlot, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, 0).WithReference(reqSubjMap),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, reqSubjSlot),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"), // made before tracing began, or by the block layer
		asm.LoadMem(asm.R1, asm.R0, 8, asm.DWord),
		asm.JNE.Imm(asm.R1, 0, "exit"), // requeued: it fired when first issued
		asm.StoreMem(asm.R10, reqEntrySlot, asm.R0, asm.DWord),
	)
	if mark {
		g.emit(asm.Mov.Imm(asm.R1, 1), asm.StoreMem(asm.R0, 8, asm.R1, asm.DWord))
	}
	g.emit(
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.JEq.Imm(asm.R1, 0, "exit"),
		asm.StoreMem(asm.R10, reqSubjSlot, asm.R1, asm.DWord),
	)
}

// requestPrograms returns the companion programs that keep each request's
// maker in reqSubjMap.
func (g *gen) requestPrograms() []*plan.Program {
	var progs []*plan.Program
	for i, tp := range reqSubjHooks {
		g.insns = nil
		g.labels = 0
		g.emit(
			asm.Mov.Reg(provider.RegCtx, asm.R1),
			asm.LoadMem(asm.R1, provider.RegCtx, 0, asm.DWord), // the request
			asm.StoreMem(asm.R10, -16, asm.R1, asm.DWord),
		)
		switch tp {
		case "block_io_start":
			g.requestMaker()
		default:
			g.emit(
				asm.LoadMapPtr(asm.R1, 0).WithReference(reqSubjMap),
				asm.Mov.Reg(asm.R2, asm.R10),
				asm.Add.Imm(asm.R2, -16),
				asm.FnMapDeleteElem.Call(),
			)
		}
		g.emit(asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"), asm.Return())
		name := "rq" + string(rune('0'+i))
		insns := append(asm.Instructions(nil), g.insns...)
		insns[0] = insns[0].WithSymbol(name)
		hook := provider.Hook{Kind: provider.HookBTFTP, Name: tp, Group: "io"}
		progs = append(progs, &plan.Program{Name: name, Hook: hook, Type: ebpf.Tracing, Insns: insns,
			For: "io:::start's record of the thread that made each request (it needs Linux 6.5's block_io_start)"})
	}
	g.insns = nil
	return progs
}

// requestMaker stores a new entry for the request at fp-16 with a
// reference to the current thread.
func (g *gen) requestMaker() {
	if g.reqValueSize() == reqSubjValue {
		g.emit(
			provider.StoreImm64(asm.R10, -32, 0),
			provider.StoreImm64(asm.R10, -24, 0),
			asm.Mov.Reg(asm.R3, asm.R10),
			asm.Add.Imm(asm.R3, -32),
		)
	} else {
		g.emit(
			asm.StoreImm(asm.R10, -24, 0, asm.Word),
			asm.LoadMapPtr(asm.R1, 0).WithReference(reqZeroMap),
			asm.Mov.Reg(asm.R2, asm.R10),
			asm.Add.Imm(asm.R2, -24),
			asm.FnMapLookupElem.Call(),
			asm.JEq.Imm(asm.R0, 0, "exit"),
			asm.Mov.Reg(asm.R3, asm.R0),
		)
	}
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(reqSubjMap),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Imm(asm.R4, 0), // BPF_ANY: a request's address is reused
		asm.FnMapUpdateElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "rq_stored"),
	)
	g.stat(plan.StatDynDrops)
	g.emit(
		asm.Ja.Label("exit"),
		asm.LoadMapPtr(asm.R1, 0).WithReference(reqSubjMap).WithSymbol("rq_stored"),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(asm.R8, asm.R0),
	)
	if g.reqKStack > 0 {
		g.saveStack(reqSubjValue, 8, g.reqKStack, 0)
	}
	if g.reqUStack > 0 {
		off := reqSubjValue + g.reqKStack
		g.emit(
			asm.FnGetCurrentPidTgid.Call(),
			asm.RSh.Imm(asm.R0, 32),
			asm.StoreMem(asm.R8, int16(off), asm.R0, asm.DWord),
		)
		g.saveStack(off, 16, g.reqUStack, 1<<8) // BPF_F_USER_STACK
	}
	g.emit(
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R1, asm.R0),
		provider.KfuncCall("bpf_task_acquire"),
		asm.JEq.Imm(asm.R0, 0, "exit"), // an exiting thread
		asm.Mov.Reg(asm.R2, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R8),
		asm.FnKptrXchg.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(asm.R1, asm.R0),
		provider.KfuncCall("bpf_task_release"),
	)
}

// saveStack saves the current stack into the entry at R8: its frame count
// at off+head-8, the frames from off+head, size-head bytes of them.
func (g *gen) saveStack(off, head, size int, flags int32) {
	ok := g.label("sstk")
	g.emit(
		asm.Mov.Reg(asm.R1, provider.RegCtx),
		asm.Mov.Reg(asm.R2, asm.R8),
		asm.Add.Imm(asm.R2, int32(off+head)),
		asm.Mov.Imm(asm.R3, int32(size-head)),
		asm.Mov.Imm(asm.R4, flags),
		asm.FnGetStack.Call(),
		asm.JSGE.Imm(asm.R0, 0, ok),
		asm.Mov.Imm(asm.R0, 0),
		asm.RSh.Imm(asm.R0, 3).WithSymbol(ok),
		asm.StoreMem(asm.R8, int16(off+head-8), asm.R0, asm.DWord),
	)
}

// reqSubjSpecs are the specs of reqSubjMap, whose value's BTF marks the
// task pointer as a referenced kptr, and, when entries keep stacks, of
// reqZeroMap.
func (g *gen) reqSubjSpecs() []*ebpf.MapSpec {
	u64 := &btf.Int{Name: "u64", Size: 8}
	task := &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: &btf.Struct{Name: "task_struct"}}}
	size := g.reqValueSize()
	members := []btf.Member{
		{Name: "task", Type: task, Offset: 0},
		{Name: "fired", Type: u64, Offset: 64},
	}
	if size > reqSubjValue {
		members = append(members, btf.Member{Name: "stacks", Offset: 8 * reqSubjValue,
			Type: &btf.Array{Index: &btf.Int{Name: "u32", Size: 4}, Type: u64, Nelems: uint32(size-reqSubjValue) / 8}})
	}
	specs := []*ebpf.MapSpec{{Name: reqSubjMap, Type: ebpf.Hash, KeySize: 8, ValueSize: uint32(size),
		// preallocated (1.4 MB without stacks): without, the programs cost ~100 ns more per request
		MaxEntries: reqSubjMax,
		Key:        u64,
		Value:      &btf.Struct{Name: "sonde_reqsubj", Size: uint32(size), Members: members}}}
	if size > reqSubjValue {
		specs = append(specs, &ebpf.MapSpec{Name: reqZeroMap, Type: ebpf.Array, KeySize: 4, ValueSize: uint32(size), MaxEntries: 1})
	}
	return specs
}
