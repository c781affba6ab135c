package insn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/arch/x86/x86asm"
)

// brKind is what an x86-64 instruction does to the flow of control, as far
// as the return sites and the check of jump targets need to know.
type brKind uint8

const (
	brNone     brKind = iota
	brRet             // ret, ret $imm16 (any prefixes: rep, bnd)
	brJump            // jmp rel8, jmp rel32
	brCond            // jcc rel8, jcc rel32
	brOther           // call rel32, loop, jrcxz, xbegin: a target, no exit
	brIndirect        // jmp through a register or memory
)

// step is one decoded x86-64 instruction of a function.
type step struct {
	off  int
	len  int
	kind brKind
	cond uint8 // brCond: the condition code, the opcode's low four bits
	rel  int64 // brJump, brCond, brOther: the displacement
	in   x86asm.Inst
}

// target returns the offset in the function a direct branch goes to.
func (s step) target() int64 { return int64(s.off) + int64(s.len) + s.rel }

// A Disagreement is an instruction that lengthAMD64 and x86asm decode
// differently: to other lengths, or one as a return or jump and the other
// not.
type Disagreement struct {
	What string
}

func (e *Disagreement) Error() string {
	return "the decoders disagree on " + e.What
}

// decodeStep decodes the x86-64 instruction at the start of code. Its
// length is lengthAMD64's, and so is its kind (classify); x86asm decodes
// it too, for the text of error messages, and is checked against them:
// when they disagree nothing is certain of the instruction, and the error
// is a *Disagreement. x86asm knows only some VEX and EVEX instructions,
// some of them wrong (vzeroupper, c5 f8 77, it reads with a ModRM), and
// not some others (endbr64, rdpkru): those it is not checked on, and the
// step's in has Op 0.
func decodeStep(code []byte) (step, error) {
	n, err := lengthAMD64(code)
	if err != nil {
		return step{}, err
	}
	s := classify(code[:n])
	s.len = n
	in, err := x86asm.Decode(code, 64)
	if err != nil || in.Op == 0 || ownLength(code) {
		return s, nil
	}
	if in.Len != n {
		return step{}, &Disagreement{fmt.Sprintf("its length (%d or %d bytes)", n, in.Len)}
	}
	if err := agree(s, in); err != nil {
		return step{}, err
	}
	s.in = in
	return s, nil
}

// agree checks classify's reading of an instruction against x86asm's.
func agree(s step, in x86asm.Inst) error {
	rel, isRel := in.Args[0].(x86asm.Rel)
	cc, isCond := jccCond(in.Op)
	ok := true
	switch s.kind {
	case brRet:
		ok = in.Op == x86asm.RET
	case brJump:
		ok = in.Op == x86asm.JMP && isRel && int64(rel) == s.rel
	case brCond:
		ok = isCond && cc == s.cond && isRel && int64(rel) == s.rel
	default:
		ok = in.Op != x86asm.RET && !(in.Op == x86asm.JMP && isRel) && !isCond
	}
	if !ok {
		return &Disagreement{"whether it is a return or a jump"}
	}
	return nil
}

// decodeAMD64 is decodeStep's x86asm.Inst, with Len set when Op is 0.
func decodeAMD64(code []byte) (x86asm.Inst, error) {
	s, err := decodeStep(code)
	if err != nil {
		return x86asm.Inst{}, err
	}
	if s.in.Op == 0 {
		return x86asm.Inst{Len: s.len}, nil
	}
	return s.in, nil
}

// classify returns the kind of the instruction code holds (exactly), as a
// step without offset and length.
func classify(code []byte) step {
	p, _ := readPrefixes(code)
	op := code[p.n:]
	n := len(code)
	rel8 := int64(int8(code[n-1]))
	rel32 := func() int64 { return int64(int32(binary.LittleEndian.Uint32(code[n-4:]))) }
	if op[0] == 0x0f && len(op) > 1 && op[1] >= 0x80 && op[1] <= 0x8f {
		return step{kind: brCond, cond: op[1] & 0xf, rel: rel32()}
	}
	switch c := op[0]; {
	case c == 0xc3 || c == 0xc2:
		return step{kind: brRet}
	case c == 0xeb:
		return step{kind: brJump, rel: rel8}
	case c == 0xe9:
		return step{kind: brJump, rel: rel32()}
	case c >= 0x70 && c <= 0x7f:
		return step{kind: brCond, cond: c & 0xf, rel: rel8}
	case c >= 0xe0 && c <= 0xe3: // loopne, loope, loop, jrcxz
		return step{kind: brOther, rel: rel8}
	case c == 0xe8:
		return step{kind: brOther, rel: rel32()}
	case c == 0xc7 && op[1] == 0xf8: // xbegin
		if p.opsize && p.rex&0x08 == 0 {
			return step{kind: brOther, rel: int64(int16(binary.LittleEndian.Uint16(code[n-2:])))}
		}
		return step{kind: brOther, rel: rel32()}
	case c == 0xff && (op[1]>>3&7 == 4 || op[1]>>3&7 == 5):
		return step{kind: brIndirect}
	}
	return step{}
}

// ownLength reports whether code starts with an instruction whose length
// is lengthAMD64's alone: a VEX or EVEX one, or fwait (9b), which objdump
// shows as one instruction with the x87 one that follows it (fstsw for
// fwait; fnstsw) and x86asm as two.
func ownLength(code []byte) bool {
	for _, c := range code {
		switch {
		case c == 0xc4 || c == 0xc5 || c == 0x62 || c == 0x9b:
			return true
		case !isPrefix(c):
			return false
		}
	}
	return false
}

// errMidTarget is the Err of a DecodeError for a direct jump or call into
// the middle of an instruction: the sweep took data for code, or code for
// other code.
var errMidTarget = errors.New("a jump goes into the middle of this instruction: data among the code, or misdecoded")

// sweepAMD64 decodes all of f and checks that it is decoded with
// certainty: every byte decodes, as lengthAMD64 and x86asm agree, and
// every direct jump or call to inside f goes to the start of an
// instruction, or past the prefixes of one (glibc jumps over a lock prefix
// when the process has one thread: "je 1f; lock; 1: cmpxchg"). Otherwise
// it returns a *DecodeError with the steps before the bytes in doubt (all
// steps when a jump's target is).
func sweepAMD64(f Func) ([]step, error) {
	steps := make([]step, 0, len(f.Code)/4+1)
	for off := 0; off < len(f.Code); {
		s, err := decodeStep(f.Code[off:])
		if err != nil {
			return steps, decodeError(f.Code, off, err)
		}
		s.off = off
		steps = append(steps, s)
		off += s.len
	}
	for _, s := range steps {
		if s.kind != brJump && s.kind != brCond && s.kind != brOther {
			continue
		}
		t := s.target()
		if t < 0 || t >= int64(len(f.Code)) {
			continue
		}
		i, found := slices.BinarySearchFunc(steps, int(t), func(s step, t int) int { return s.off - t })
		if found {
			continue
		}
		at := steps[i-1] // the instruction t is inside of
		if !prefixesUpTo(f.Code[at.off:], int(t)-at.off) {
			return steps, decodeError(f.Code, at.off, fmt.Errorf("%w (the one at %#x goes to %#x)", errMidTarget, s.off, t))
		}
	}
	return steps, nil
}

// prefixesUpTo reports whether code[:n] are legacy prefixes.
func prefixesUpTo(code []byte, n int) bool {
	for _, c := range code[:n] {
		if !isPrefix(c) || c&0xf0 == 0x40 {
			return false
		}
	}
	return true
}

func returnsAMD64(f Func, found func(Site)) error {
	steps, err := sweepAMD64(f)
	if err != nil {
		return err
	}
	for _, s := range steps {
		switch s.kind {
		case brRet:
			found(Site{Off: uint64(s.off), Kind: Ret})
		case brJump:
			if t, out := outside(f, s.off, s.len, s.rel); out {
				found(Site{Off: uint64(s.off), Kind: Jump, Target: t})
			}
		case brCond:
			if t, out := outside(f, s.off, s.len, s.rel); out {
				found(Site{Off: uint64(s.off), Kind: CondJump, Cond: s.cond, Target: t})
			}
		}
	}
	return nil
}

// jccCond returns the condition code of a jcc (opcodes 70-7f, 0f 80-8f);
// jcxz and loop are not among them, as in illumos.
func jccCond(op x86asm.Op) (uint8, bool) {
	switch op {
	case x86asm.JO:
		return 0x0, true
	case x86asm.JNO:
		return 0x1, true
	case x86asm.JB:
		return 0x2, true
	case x86asm.JAE:
		return 0x3, true
	case x86asm.JE:
		return 0x4, true
	case x86asm.JNE:
		return 0x5, true
	case x86asm.JBE:
		return 0x6, true
	case x86asm.JA:
		return 0x7, true
	case x86asm.JS:
		return 0x8, true
	case x86asm.JNS:
		return 0x9, true
	case x86asm.JP:
		return 0xa, true
	case x86asm.JNP:
		return 0xb, true
	case x86asm.JL:
		return 0xc, true
	case x86asm.JGE:
		return 0xd, true
	case x86asm.JLE:
		return 0xe, true
	case x86asm.JG:
		return 0xf, true
	}
	return 0, false
}

// amd64Text renders the instruction s of f in AT&T syntax, as objdump
// does; the bytes, when x86asm does not know the instruction.
func amd64Text(f Func, s step) string {
	b := f.Code[s.off : s.off+s.len]
	in := s.in
	if in.Op == 0 {
		// x86asm may know it (a VEX instruction) though not checked on it.
		if d, err := x86asm.Decode(b, 64); err == nil && d.Op != 0 && d.Len == len(b) {
			in = d
		}
	}
	if in.Op != 0 {
		return x86asm.GNUSyntax(in, f.Addr+uint64(s.off), nil)
	}
	switch {
	case len(b) == 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa:
		return "endbr64"
	case len(b) == 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfb:
		return "endbr32"
	}
	return fmt.Sprintf(".byte % #x", b)
}
