package codegen

import "github.com/cilium/ebpf/asm"

// prune removes instructions that no path from the entry reaches (the
// verifier rejects unreachable code). Such code arises from constant
// conditions and from shared emitters whose optional branches are unused.
func prune(insns asm.Instructions) asm.Instructions {
	labels := map[string]int{}
	for i, ins := range insns {
		if s := ins.Symbol(); s != "" {
			labels[s] = i
		}
	}
	seen := make([]bool, len(insns))
	work := []int{0}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for i < len(insns) && !seen[i] {
			seen[i] = true
			ins := insns[i]
			if ins.IsLoadOfFunctionPointer() {
				// a bpf_loop callback: reached through the helper
				if t, ok := labels[ins.Reference()]; ok {
					work = append(work, t)
				}
			}
			if !ins.OpCode.Class().IsJump() {
				i++
				continue
			}
			op := ins.OpCode.JumpOp()
			if op == asm.Exit {
				break
			}
			if op == asm.Call {
				if ins.IsFunctionCall() {
					if t, ok := labels[ins.Reference()]; ok {
						work = append(work, t)
					}
				}
				i++
				continue
			}
			if t, ok := labels[ins.Reference()]; ok {
				work = append(work, t)
			}
			if op == asm.Ja {
				break
			}
			i++
		}
	}
	out := insns[:0:0]
	for i, ins := range insns {
		if seen[i] {
			out = append(out, ins)
		}
	}
	return out
}
