// Package insn decodes a function's machine code for the pid provider: it
// finds where instructions begin, so that an offset probe (pid$1::f:1c) is
// never placed inside an instruction, and where the function returns, so
// that return probes can be placed as DTrace places them.
//
// DTrace's pid provider (illumos libdtrace, i386/dt_isadep.c) finds return
// sites by a linear sweep over the function's bytes from its symbol value
// to st_value+st_size, and so does this package: x86-64 instructions'
// lengths are decoded by the tables of length.go (legacy, VEX and EVEX
// encodings, as objdump -d decodes them), checked against
// golang.org/x/arch/x86/x86asm where it knows the instruction; arm64
// instructions are all four bytes long and need no decoder.
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
// are decoded too, and must decode (see Certainty).
//
// # Certainty
//
// A uprobe placed anywhere but at the start of an instruction corrupts
// the process (glibc's AVX2 memchr died of a breakpoint placed one byte
// into a vzeroupper that a decoder took for four bytes), and a return
// site missed makes a wrong count. So a function is decoded whole, and
// used only when it is decoded with certainty: every byte of it decodes
// to a known instruction (an opcode outside the tables is unknown, never
// guessed at), x86asm agrees on every instruction it knows (its length,
// and whether it is a return or a jump), and every direct jump or call to
// inside the function goes to the start of an instruction, or past the
// prefixes of one (glibc's "je 1f; lock; 1: cmpxchg"), for a jump into
// the middle of an instruction means data among the code or a misdecoded
// instruction. Otherwise Boundaries, CheckOffset, Returns and ReturnSites
// report a *DecodeError, and no probe is to be placed in the function.
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
// cases: the sweep runs into bytes that do not decode, or a jump goes into
// the middle of what it decoded (see Certainty).
package insn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

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
	// Err is x86asm.ErrUnrecognized or x86asm.ErrTruncated, a
	// *Disagreement, or errMidTarget (wrapped) when a jump goes into the
	// middle of the instruction at Off.
	Err error
}

func (e *DecodeError) Unwrap() error { return e.Err }

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
// its start, ascending) at which instructions begin. When f cannot be
// decoded with certainty (see "Certainty" in the package comment) it
// returns a *DecodeError naming the offset of the instruction in doubt,
// together with the boundaries before it (all of them, when a jump goes
// into the middle of an instruction). arch is a GOARCH: "amd64" or
// "arm64".
func Boundaries(arch string, f Func) ([]uint64, error) {
	if arch != "amd64" && arch != "arm64" {
		return nil, unsupported(arch)
	}
	if len(f.Code) == 0 {
		return nil, errEmpty
	}
	switch arch {
	case "amd64":
		steps, err := sweepAMD64(f)
		offs := make([]uint64, len(steps))
		for i, s := range steps {
			offs[i] = uint64(s.off)
		}
		return offs, err
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
// It decodes all of f: when f cannot be decoded with certainty, any
// offset is an error (wrapping a *DecodeError), for the boundaries are
// in doubt; so is off >= len(f.Code).
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
	steps, err := sweepAMD64(f)
	if err != nil {
		return fmt.Errorf("offset %#x: the function's instructions are not known for certain: %w", off, err)
	}
	i, found := slices.BinarySearchFunc(steps, int(off), func(s step, t int) int { return s.off - t })
	if found {
		return nil
	}
	s := steps[i-1]
	return fmt.Errorf("offset %#x is inside the instruction at %#x (%s, %d bytes)", off, s.off, amd64Text(f, s), s.len)
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
// When f cannot be decoded with certainty (see "Certainty" in the package
// comment), Returns finds no site: it reports a *DecodeError and nil, for
// a return site missed would be a wrong count and a site placed inside an
// instruction would corrupt the process.
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
