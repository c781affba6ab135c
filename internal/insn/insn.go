// Package insn decodes a function's machine code for the pid provider: it
// finds where instructions begin, so that an offset probe (pid$1::f:1c) is
// never placed inside an instruction, and where the function returns, so
// that return probes can be placed as DTrace places them.
//
// DTrace's pid provider (illumos libdtrace, i386/dt_isadep.c) finds return
// sites by a linear sweep over the function's bytes from its symbol value
// to st_value+st_size, and so does this package: x86-64 code is decoded
// with golang.org/x/arch/x86/x86asm; arm64 instructions are all four bytes
// long and need no decoder.
//
// # The function's extent
//
// Func.Code is the function's bytes as the caller read them from the file,
// normally the symbol's st_size bytes. For a symbol of size 0 (hand-written
// assembly without a .size directive) the caller chooses the length, best
// up to the next symbol's address; every byte passed is taken for code of
// the function, so the length decides both how far the sweep goes and what
// "outside the function" means for a jump (see Returns). Bytes that decode
// as something after the function's true end (padding, the next function)
// are decoded too; undecodable ones are handled as each function says.
//
// # Indirect jumps
//
// An indirect jmp (through a register or memory: jmp *%rax, jmp *8(%rip),
// notrack jmp *%rdx) is never a return site here, nor in illumos. illumos
// goes further: dt_pid_has_jump_table takes any "register-dependant jmp"
// (opcode 0xff with ModRM.reg 4, REX-prefixed or not) as the sign of a
// switch jump table that might sit in .text among the instructions, and
// then (1) makes return probes only for the byte sequences "leave; [rep]
// ret" and "movl %ebp,%esp; popl %ebp; [rep] ret", and (2) refuses offset
// probes (dt_pid_create_offset_probe and the glob variant make none). This
// package does not do that: on x86-64 ELF, GCC (JUMP_TABLES_IN_TEXT_SECTION
// is false for 64-bit code) and Clang emit jump tables into .rodata, never
// into .text, so the sweep cannot mistake a table for instructions; with
// frame pointers omitted the "leave; ret" rule would leave nearly every
// function with a switch or an indirect tail call without a return probe
// (in Debian 12's libc, 47 of the 2153 functions in .dynsym have an
// indirect jmp, and none of those has a "leave; ret"). Hand-written
// assembly that puts data among its instructions is still caught in most
// cases: the sweep runs into bytes that do not decode, and Boundaries and
// CheckOffset report an error.
package insn

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// Func is a function's machine code as it is in the file.
type Func struct {
	Addr uint64 // the virtual address of Code[0]: the symbol's value
	Code []byte // the function's bytes; see the package comment for their length
}

// A DecodeError reports bytes that do not decode as an instruction.
type DecodeError struct {
	Off   uint64 // from the start of the function
	Bytes []byte // up to 8 bytes from Off
	Err   error  // x86asm.ErrUnrecognized or x86asm.ErrTruncated
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("cannot decode the instruction at offset %#x (% x): %v", e.Off, e.Bytes, e.Err)
}

func decodeError(code []byte, off int, err error) *DecodeError {
	return &DecodeError{Off: uint64(off), Bytes: append([]byte(nil), code[off:min(off+8, len(code))]...), Err: err}
}

// errEmpty is returned for a Func without code.
var errEmpty = errors.New("the function has no code (size 0)")

func unsupported(arch string) error {
	return fmt.Errorf("instruction decoding for %s is not supported", arch)
}

// Boundaries decodes f from its start and returns the offsets (relative to
// its start, ascending) at which instructions begin. When bytes do not
// decode it returns a *DecodeError naming their offset, together with the
// boundaries before them, which is what illumos takes for the glob offset
// probes (pid$1::f:*), stopping at an invalid opcode. arch is a GOARCH:
// "amd64" or "arm64".
func Boundaries(arch string, f Func) ([]uint64, error) {
	if arch != "amd64" && arch != "arm64" {
		return nil, unsupported(arch)
	}
	if len(f.Code) == 0 {
		return nil, errEmpty
	}
	switch arch {
	case "amd64":
		offs := make([]uint64, 0, len(f.Code)/4+1)
		for off := 0; off < len(f.Code); {
			in, err := decodeAMD64(f.Code[off:])
			if err != nil {
				return offs, decodeError(f.Code, off, err)
			}
			offs = append(offs, uint64(off))
			off += in.Len
		}
		return offs, nil
	case "arm64":
		offs := make([]uint64, 0, len(f.Code)/4)
		for off := 0; off+4 <= len(f.Code); off += 4 {
			offs = append(offs, uint64(off))
		}
		if r := len(f.Code) % 4; r != 0 {
			return offs, decodeError(f.Code, len(f.Code)-r, x86asm.ErrTruncated)
		}
		return offs, nil
	}
	return nil, unsupported(arch)
}

// CheckOffset reports nil when off is the start of an instruction of f,
// else an error saying why a probe cannot go there, such as "offset 0x3 is
// inside the instruction at 0x1 (mov %rsp,%rbp, 3 bytes)", so that a
// mistyped offset never puts a breakpoint in the middle of an instruction.
// It decodes f from its start up to and including the instruction at off:
// an offset at or past bytes that do not decode is an error (wrapping a
// *DecodeError), and so is off >= len(f.Code).
func CheckOffset(arch string, f Func, off uint64) error {
	if arch != "amd64" && arch != "arm64" {
		return unsupported(arch)
	}
	if off >= uint64(len(f.Code)) {
		return fmt.Errorf("offset %#x is past the end of the function (%#x bytes)", off, len(f.Code))
	}
	if arch == "arm64" {
		at := off &^ 3
		if at+4 > uint64(len(f.Code)) {
			return fmt.Errorf("offset %#x: %w", off, decodeError(f.Code, int(at), x86asm.ErrTruncated))
		}
		if at == off {
			return nil
		}
		return fmt.Errorf("offset %#x is inside the instruction at %#x (%s, 4 bytes)", off, at, arm64Text(f, int(at)))
	}
	for p := 0; ; {
		in, err := decodeAMD64(f.Code[p:])
		if err != nil {
			return fmt.Errorf("offset %#x: %w", off, decodeError(f.Code, p, err))
		}
		if uint64(p) == off {
			return nil
		}
		if uint64(p+in.Len) > off {
			return fmt.Errorf("offset %#x is inside the instruction at %#x (%s, %d bytes)", off, p, amd64Text(f, p, in), in.Len)
		}
		p += in.Len
	}
}

// Kind is the kind of a return site.
type Kind uint8

const (
	// Ret is a near return: ret, ret $imm16, rep ret, bnd ret (arm64: ret,
	// ret xN, retaa, retab).
	Ret Kind = iota + 1
	// Jump is an unconditional direct jump (jmp rel8/rel32; arm64: b) to
	// outside the function: a tail call.
	Jump
	// CondJump is a conditional direct jump (jcc rel8/rel32) to outside
	// the function: a conditional tail call, a return only when taken.
	CondJump
)

func (k Kind) String() string {
	switch k {
	case Ret:
		return "ret"
	case Jump:
		return "jump"
	case CondJump:
		return "conditional jump"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Site is a return site found by ReturnSites.
type Site struct {
	Off  uint64 // the offset of the instruction from the function's start
	Kind Kind
	// Cond is a CondJump's x86 condition code, the low four bits of its
	// opcode (0x70+cc, 0x0f 0x80+cc): 0x4 for je, 0x5 for jne, and so on.
	Cond uint8
	// Target is a Jump's or CondJump's destination, a virtual address in
	// the same terms as Func.Addr; 0 for a Ret. A caller with the full
	// symbol table can tell a jump into "f.cold", the part of f that GCC
	// moved out of line, from a tail call.
	Target uint64
}

// Returns lists the offsets of f's unconditional return sites, ascending,
// as DTrace's pid provider finds them (illumos libdtrace,
// dt_pid_create_return_probe for i386/amd64): every near ret (c3; c2 iw;
// with a rep or bnd prefix, f3 c3, f2 c3), and every direct jmp (eb rel8,
// e9 rel32) whose target lies outside [f.Addr, f.Addr+len(f.Code)), a tail
// call, which DTrace takes for a return. Indirect jumps are not return
// sites (see the package comment). Conditional jumps out of the function,
// which illumos also instruments (its fasttrap fires them only when taken),
// are left out: a uprobe fires before the branch is decided; ReturnSites
// lists them. On arm64 the sites are the ret instructions (ret, ret xN,
// retaa, retab) and the b instructions whose target is outside f.
//
// Like DTrace's, the rule takes a jump into the part of f that GCC moved
// out of line ("f.cold", -freorder-blocks-and-partition, on at -O2) for a
// tail call, though f goes on when that part jumps back; nothing in f's
// bytes tells the two apart. ReturnSites gives each jump's target, for a
// caller with the symbol table to drop those.
//
// When bytes do not decode and the last instruction before them (other
// than nop and int3 padding) does not fall through (a ret, a jmp, ud2 or
// hlt), the sweep stops there: the bytes are taken for padding or data
// after the function's end. Otherwise Returns reports a *DecodeError with
// the sites found before it.
func Returns(arch string, f Func) ([]uint64, error) {
	var offs []uint64
	err := sweepReturns(arch, f, func(s Site) {
		if s.Kind != CondJump {
			offs = append(offs, s.Off)
		}
	})
	return offs, err
}

// ReturnSites is Returns with the conditional jumps out of f as well
// (x86-64 jcc rel8/rel32, as illumos instruments them), and with the kind
// of each site, for a caller that can make a probe at a CondJump fire only
// when the jump is taken (by testing its Cond against the flags).
func ReturnSites(arch string, f Func) ([]Site, error) {
	var sites []Site
	err := sweepReturns(arch, f, func(s Site) { sites = append(sites, s) })
	return sites, err
}

func sweepReturns(arch string, f Func, found func(Site)) error {
	switch {
	case arch != "amd64" && arch != "arm64":
		return unsupported(arch)
	case len(f.Code) == 0:
		return errEmpty
	case arch == "arm64":
		return returnsARM64(f, found)
	}
	return returnsAMD64(f, found)
}

// outside reports whether the jump at off, len bytes long, with
// displacement rel, leaves f; it returns the target address.
func outside(f Func, off, n int, rel int64) (uint64, bool) {
	t := int64(off) + int64(n) + rel
	return f.Addr + uint64(t), t < 0 || t >= int64(len(f.Code))
}

func returnsAMD64(f Func, found func(Site)) error {
	ended := false // the last instruction but padding does not fall through
	for off := 0; off < len(f.Code); {
		in, err := decodeAMD64(f.Code[off:])
		if err != nil {
			if ended {
				return nil
			}
			return decodeError(f.Code, off, err)
		}
		switch in.Op {
		case x86asm.RET:
			found(Site{Off: uint64(off), Kind: Ret})
			ended = true
		case x86asm.JMP:
			if rel, ok := in.Args[0].(x86asm.Rel); ok {
				if t, out := outside(f, off, in.Len, int64(rel)); out {
					found(Site{Off: uint64(off), Kind: Jump, Target: t})
				}
			}
			ended = true
		case x86asm.UD2, x86asm.HLT:
			ended = true
		case x86asm.NOP, x86asm.INT:
			// padding (int3 and int $n: not an exit either way)
		default:
			ended = false
			if cc, ok := jccCond(in.Op); ok {
				if rel, ok := in.Args[0].(x86asm.Rel); ok {
					if t, out := outside(f, off, in.Len, int64(rel)); out {
						found(Site{Off: uint64(off), Kind: CondJump, Cond: cc, Target: t})
					}
				}
			}
		}
		off += in.Len
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

// decodeAMD64 decodes the x86-64 instruction at the start of code.
//
// x86asm.Decode does not fail on a prefix it cannot make sense of with
// what follows (an instruction it does not know, or one cut short by the
// end of code): it returns the prefix alone as a 1-byte instruction with
// Op 0. That would make offset 1 of "endbr64" (f3 0f 1e fa) look like an
// instruction boundary. So an Op 0 result is a failure, unless
//
//   - the prefix is f2 or f3 and x86asm decodes what follows it: it is
//     then taken as that instruction's mandatory prefix, which does not
//     change its length (rdpid, f3 0f c7 /7; incssp, f3 [48] 0f ae /5;
//     and the like), and the result has Op 0, Len set, and the
//     instruction after the prefix in Args; or
//   - manualLen knows the instruction (endbr64, rdpkru, ...): the result
//     has Op 0, Len set and no Args.
//
// The error is x86asm.ErrTruncated when the bytes decode once padded with
// zeros to past the end of code, else x86asm.ErrUnrecognized.
func decodeAMD64(code []byte) (x86asm.Inst, error) {
	if in, ok := decodeRaw(code); ok {
		return in, nil
	}
	// Cut short by the end of code rather than invalid, if it decodes
	// once padded with zero bytes.
	if len(code) < 15 {
		var b [16]byte
		copy(b[:], code)
		if in, ok := decodeRaw(b[:]); ok && in.Len > len(code) {
			return x86asm.Inst{}, x86asm.ErrTruncated
		}
	}
	return x86asm.Inst{}, x86asm.ErrUnrecognized
}

func decodeRaw(code []byte) (x86asm.Inst, bool) {
	in, err := x86asm.Decode(code, 64)
	if err == nil && in.Op != 0 {
		return in, true
	}
	if err == nil && (code[0] == 0xf2 || code[0] == 0xf3) {
		next, err := x86asm.Decode(code[1:], 64)
		if err == nil && next.Op != 0 {
			next.Op, next.Len = 0, next.Len+1
			return next, true
		}
	}
	if n := manualLen(code); n > 0 {
		return x86asm.Inst{Len: n}, true
	}
	return in, false
}

// manualLen returns the length of one of the instructions below, after
// legacy prefixes and a REX prefix, or 0. x86asm knows few of them.
//
//   - 0f 01 with a register ModRM (mod 3): three bytes with no operands
//     (rdpkru, wrpkru, clac, stac, serialize, clzero, rdpru, saveprevssp...).
//   - 0f 18 to 0f 1f with any ModRM: the hint NOP space (prefetches, MPX
//     bnd*, cldemote, and 0f 1e: endbr64, endbr32, rdsspd, rdsspq), whose
//     length is that of the ModRM operand.
func manualLen(code []byte) int {
	p := 0
	for p < len(code) && p < 14 {
		switch code[p] {
		case 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3:
			p++
			continue
		}
		break
	}
	if p < len(code) && code[p]&0xf0 == 0x40 {
		p++
	}
	if p+3 > len(code) || code[p] != 0x0f {
		return 0
	}
	op, modrm := code[p+1], code[p+2]
	n := 0
	switch {
	case op == 0x01 && modrm >= 0xc0:
		n = p + 3
	case op >= 0x18 && op <= 0x1f:
		n = p + 2 + modrmLen(code[p+2:])
	}
	if n > len(code) || n > 15 || n < p+3 {
		return 0
	}
	return n
}

// modrmLen returns the length of a ModRM byte with its SIB byte and
// displacement (32- or 64-bit addressing), or 0 when code is too short to
// tell.
func modrmLen(code []byte) int {
	modrm := code[0]
	mod, rm := modrm>>6, modrm&7
	n := 1
	if mod != 3 && rm == 4 { // SIB
		if len(code) < 2 {
			return 0
		}
		n++
		if mod == 0 && code[1]&7 == 5 { // no base: disp32
			n += 4
		}
	}
	switch {
	case mod == 0 && rm == 5: // rip-relative
		n += 4
	case mod == 1:
		n++
	case mod == 2:
		n += 4
	}
	return n
}

// amd64Text renders the instruction at off in AT&T syntax, as objdump does.
func amd64Text(f Func, off int, in x86asm.Inst) string {
	if in.Op == 0 { // a prefix x86asm does not know; see decodeAMD64
		b := f.Code[off : off+in.Len]
		switch {
		case len(b) == 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa:
			return "endbr64"
		case len(b) == 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfb:
			return "endbr32"
		}
		return fmt.Sprintf(".byte % #x", b)
	}
	return x86asm.GNUSyntax(in, f.Addr+uint64(off), nil)
}

// arm64 encodings (little-endian words).
const (
	arm64RetMask = 0xfffffc1f // ret xN: d65f0000 | n<<5
	arm64Ret     = 0xd65f0000
	arm64RetAA   = 0xd65f0bff
	arm64RetAB   = 0xd65f0fff
	arm64BMask   = 0xfc000000 // b imm26
	arm64B       = 0x14000000
)

func returnsARM64(f Func, found func(Site)) error {
	for off := 0; off+4 <= len(f.Code); off += 4 {
		w := binary.LittleEndian.Uint32(f.Code[off:])
		switch {
		case w&arm64RetMask == arm64Ret, w == arm64RetAA, w == arm64RetAB:
			found(Site{Off: uint64(off), Kind: Ret})
		case w&arm64BMask == arm64B:
			rel := int64(int32(w<<6)>>6) * 4 // sign-extended imm26, in words
			if t, out := outside(f, off, 0, rel); out {
				found(Site{Off: uint64(off), Kind: Jump, Target: t})
			}
		}
	}
	return nil
}

// arm64Text renders the arm64 instruction at off in GNU syntax.
func arm64Text(f Func, off int) string {
	in, err := arm64asm.Decode(f.Code[off : off+4])
	if err != nil {
		return fmt.Sprintf(".inst %#08x", binary.LittleEndian.Uint32(f.Code[off:]))
	}
	return arm64asm.GNUSyntax(in)
}
