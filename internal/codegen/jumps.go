package codegen

import (
	"math"

	"github.com/cilium/ebpf/asm"
)

// maxInsns is the kernel's limit on the length of one program
// (BPF_COMPLEXITY_LIMIT_INSNS, for a loader with CAP_BPF).
const maxInsns = 1_000_000

// longJumps rewrites the jumps whose target is too far for the 16-bit
// offset of a BPF jump (cilium/ebpf would truncate it silently, and the
// program would jump somewhere else) into 32-bit jumps (BPF_JMP32|BPF_JA,
// "gotol", kernel 6.6): an unconditional jump becomes one; a conditional
// jump becomes its inverse over a gotol to the target. Every jump of the
// generated code names its target by label. Rewriting moves code, so the
// pass repeats until every jump fits.
func longJumps(insns asm.Instructions) asm.Instructions {
	for {
		far := farJumps(insns)
		if len(far) == 0 {
			return insns
		}
		out := make(asm.Instructions, 0, len(insns)+2*len(far))
		for i, ins := range insns {
			if far[i] {
				out = append(out, longJump(ins)...)
				continue
			}
			out = append(out, ins)
		}
		insns = out
	}
}

// farJumps returns the indexes of the jumps whose offset does not fit in
// 16 bits.
func farJumps(insns asm.Instructions) map[int]bool {
	sym := map[string]int64{}
	offs := make([]int64, len(insns))
	off := int64(0)
	for i, ins := range insns {
		offs[i] = off
		if s := ins.Symbol(); s != "" {
			sym[s] = off
		}
		off += int64(ins.Size() / asm.InstructionSize)
	}
	far := map[int]bool{}
	for i, ins := range insns {
		if !isShortJump(ins) {
			continue
		}
		t, ok := sym[ins.Reference()]
		if !ok {
			continue
		}
		if d := t - offs[i] - 1; d > math.MaxInt16 || d < math.MinInt16 {
			far[i] = true
		}
	}
	return far
}

// isShortJump reports whether ins is a jump to a label with a 16-bit
// offset (not a call, an exit or already a long jump).
func isShortJump(ins asm.Instruction) bool {
	if !ins.OpCode.Class().IsJump() || ins.Reference() == "" {
		return false
	}
	switch op := ins.OpCode.JumpOp(); op {
	case asm.Call, asm.Exit:
		return false
	case asm.Ja:
		return ins.OpCode.Class() == asm.JumpClass
	}
	return true
}

var gotol = asm.OpCode(asm.Jump32Class).SetJumpOp(asm.Ja).SetSource(asm.ImmSource)

// inverse maps a conditional jump to the one taken exactly when it is not.
var inverse = map[asm.JumpOp]asm.JumpOp{
	asm.JEq: asm.JNE, asm.JNE: asm.JEq,
	asm.JGT: asm.JLE, asm.JLE: asm.JGT,
	asm.JGE: asm.JLT, asm.JLT: asm.JGE,
	asm.JSGT: asm.JSLE, asm.JSLE: asm.JSGT,
	asm.JSGE: asm.JSLT, asm.JSLT: asm.JSGE,
}

// longJump returns the instructions replacing the far jump ins. The first
// keeps ins's symbol and metadata.
func longJump(ins asm.Instruction) asm.Instructions {
	long := asm.Instruction{OpCode: gotol, Constant: -1}.WithReference(ins.Reference())
	if ins.OpCode.JumpOp() == asm.Ja {
		long.Metadata = ins.Metadata
		long.Offset = 0
		return asm.Instructions{long}
	}
	first := ins.WithReference("")
	if inv, ok := inverse[ins.OpCode.JumpOp()]; ok {
		// if !cond goto +1; gotol target
		first.OpCode = ins.OpCode.SetJumpOp(inv)
		first.Offset = 1
		return asm.Instructions{first, long}
	}
	// JSet has no inverse: if cond goto +1; goto +1; gotol target
	first.Offset = 1
	return asm.Instructions{first, {OpCode: asm.Ja.Op(asm.ImmSource), Offset: 1}, long}
}
