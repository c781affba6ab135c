package codegen

import (
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/sonde-trace/sonde/internal/plan"
)

// Loops whose iterations branch on data (a substring search, strtoll's
// digits, inet_ntop's zero run) are bpf_loop() callbacks: the verifier
// checks a callback once, whatever the number of iterations, where it walks
// a bounded loop of the main program once per iteration.
//
// A callback is a BPF subprogram of the program that calls it, emitted
// after the program's exit. It has its own frame: R6 holds the iteration
// index, R7 (rS) the scratch area, looked up again, so the emitters that
// address scratch work unchanged. It may not fault (a fault jumps to the
// clause's end, in another frame) nor touch the BPF stack of the clause.
// Programs with callbacks carry BTF function information, which the
// kernel requires for them.

const (
	regLoopIdx = asm.R6 // the iteration index, in a callback
	loopStop   = 1      // a callback's return value that ends the loop
)

// bpfLoop emits bpf_loop(R1, callback, NULL, 0) for a count already in R1
// (at most 1<<23). body emits the callback's code: it may jump to brk to
// end the loop, and falls through to go on with the next iteration.
func (g *gen) bpfLoop(body func(brk string)) {
	cb := g.label("cb")
	brk := cb + "_brk"
	g.emit(
		asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: -1}.WithReference(cb),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnLoop.Call(),
	)
	saved, savedStack := g.insns, g.stack
	g.insns, g.stack = nil, 8
	g.emit(
		asm.Mov.Reg(regLoopIdx, asm.R1).WithSymbol(cb),
		asm.StoreImm(asm.R10, -8, int64(g.slot), asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference(plan.MapScratch),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, brk),
		asm.Mov.Reg(rS, asm.R0),
	)
	body(brk)
	g.emit(
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		asm.Mov.Imm(asm.R0, loopStop).WithSymbol(brk),
		asm.Return(),
	)
	g.insns[0] = markClause(btf.WithFuncMetadata(g.insns[0], callbackFunc(cb)), g.cl.Index)
	g.subs = append(g.subs, g.insns...)
	g.insns, g.stack = saved, savedStack
}

// emitSubprogs appends the program's callbacks after its exit.
func (g *gen) emitSubprogs() {
	g.emit(g.subs...)
	g.subs = nil
}

var (
	btfLong = &btf.Int{Name: "long", Size: 8, Encoding: btf.Signed}
	btfU64  = &btf.Int{Name: "u64", Size: 8}
	btfVoid = &btf.Pointer{Target: &btf.Void{}}
)

func callbackFunc(name string) *btf.Func {
	return &btf.Func{Name: name, Linkage: btf.StaticFunc, Type: &btf.FuncProto{Return: btfLong,
		Params: []btf.FuncParam{{Name: "index", Type: btfU64}, {Name: "ctx", Type: btfVoid}}}}
}

// funcInfo gives the program's entry BTF function information when it has
// callbacks (the kernel wants it for every function or none).
func funcInfo(insns asm.Instructions, name string) asm.Instructions {
	for i := 1; i < len(insns); i++ {
		if btf.FuncMetadata(&insns[i]) != nil {
			insns[0] = btf.WithFuncMetadata(insns[0], &btf.Func{Name: name, Linkage: btf.GlobalFunc,
				Type: &btf.FuncProto{Return: btfLong, Params: []btf.FuncParam{{Name: "ctx", Type: btfVoid}}}})
			break
		}
	}
	return insns
}
