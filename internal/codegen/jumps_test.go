package codegen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/cilium/ebpf/asm"
)

// farProgram returns code with one jump (op, comparing R1 with 5) to a
// label far away, forwards or backwards: R0 is 1 where the jump lands and
// 2 where it falls through.
func farProgram(op asm.JumpOp, back bool, far int) asm.Instructions {
	filler := func(n int) asm.Instructions {
		out := make(asm.Instructions, n)
		for i := range out {
			out[i] = asm.Mov.Imm(asm.R3, int32(i))
		}
		return out
	}
	j := op.Imm(asm.R1, 5, "target")
	if op == asm.Ja {
		j = asm.Ja.Label("target")
	}
	fall := asm.Instructions{j, asm.Mov.Imm(asm.R0, 2), asm.Return()}
	target := asm.Instructions{asm.Mov.Imm(asm.R0, 1).WithSymbol("target"), asm.Return()}
	var insns asm.Instructions
	if back {
		insns = append(insns, asm.Ja.Label("start"))
		insns = append(insns, target...)
		insns = append(insns, filler(far)...)
		insns = append(insns, fall[0].WithSymbol("start"))
		insns = append(insns, fall[1:]...)
		return insns
	}
	insns = append(insns, fall...)
	insns = append(insns, filler(far)...)
	return append(insns, target...)
}

// encode encodes insns as cilium/ebpf does for the kernel and decodes the
// bytes: jumps then hold the offsets encoded, not labels.
func encode(t *testing.T, insns asm.Instructions) asm.Instructions {
	t.Helper()
	var buf bytes.Buffer
	if err := insns.Marshal(&buf, binary.LittleEndian); err != nil {
		t.Fatal(err)
	}
	raw, err := asm.AppendInstructions(nil, &buf, binary.LittleEndian, "linux")
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// runRaw runs encoded instructions with R1 = r1 and returns R0.
func runRaw(t *testing.T, raw asm.Instructions, r1 uint64) uint64 {
	t.Helper()
	at := map[int]int{} // raw offset -> index
	off := 0
	for i, ins := range raw {
		at[off] = i
		off += int(ins.Size() / asm.InstructionSize)
	}
	r := [11]uint64{1: r1}
	pc := 0 // raw offset
	for steps := 0; steps < 100000; steps++ {
		i, ok := at[pc]
		if !ok {
			t.Fatalf("jump into the middle of an instruction or out of the program: %d", pc)
		}
		ins := raw[i]
		next := pc + int(ins.Size()/asm.InstructionSize)
		op := ins.OpCode
		switch {
		case op.Class() == asm.ALU64Class && op.ALUOp() == asm.Mov:
			r[ins.Dst] = uint64(ins.Constant)
		case op.JumpOp() == asm.Exit:
			return r[0]
		case op == gotol:
			next += int(ins.Constant)
		case op.Class() == asm.JumpClass:
			taken, err := jump(op.JumpOp(), r[ins.Dst], uint64(ins.Constant))
			if op.JumpOp() == asm.JSet {
				taken, err = r[ins.Dst]&uint64(ins.Constant) != 0, nil
			}
			if err != nil {
				t.Fatalf("%v: %v", ins, err)
			}
			if taken {
				next += int(ins.Offset)
			}
		default:
			t.Fatalf("%v: not interpreted", ins)
		}
		pc = next
	}
	t.Fatal("too many steps")
	return 0
}

// TestLongJumps: a jump farther than a 16-bit offset reaches lands on its
// label, whatever its kind and direction (cilium/ebpf truncated the
// offset, and the jump went elsewhere).
func TestLongJumps(t *testing.T) {
	ops := []asm.JumpOp{asm.Ja, asm.JEq, asm.JNE, asm.JGT, asm.JGE, asm.JLT, asm.JLE,
		asm.JSGT, asm.JSGE, asm.JSLT, asm.JSLE, asm.JSet}
	for _, op := range ops {
		for _, back := range []bool{false, true} {
			for _, far := range []int{100, math.MaxInt16 + 10, 70000} {
				name := fmt.Sprintf("%v/back=%v/%d", op, back, far)
				insns := longJumps(farProgram(op, back, far))
				raw := encode(t, insns)
				for _, r1 := range []uint64{0, 4, 5, 6, math.MaxUint64} {
					want := uint64(2)
					if taken, err := jump(op, r1, 5); err == nil && taken || op == asm.JSet && r1&5 != 0 {
						want = 1
					}
					if got := runRaw(t, raw, r1); got != want {
						t.Errorf("%s: R1=%d: landed at R0=%d, want %d", name, r1, got, want)
					}
				}
				if far == 100 && len(insns) != len(farProgram(op, back, far)) {
					t.Errorf("%s: a near jump was rewritten", name)
				}
			}
		}
	}
}
