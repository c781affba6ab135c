package insn

import "golang.org/x/arch/x86/x86asm"

// This file is a table-driven length decoder for x86-64 instructions:
// legacy, VEX (c4, c5) and EVEX (62) encodings. It knows an instruction's
// length from its prefixes, its opcode map and opcode, its ModRM, SIB and
// displacement bytes and the size of its immediate, which is all the pid
// provider needs; x86asm, which knows no VEX or EVEX instruction and only
// part of the system instructions, is checked against it (see
// decodeAMD64). Opcodes that are not in the tables (undefined ones, XOP,
// APX, the instructions whose length depends on more than the tables say)
// are refused with x86asm.ErrUnrecognized rather than guessed at. The
// lengths are those of objdump -d (GNU binutils); TestObjdump compares
// them over every instruction of the system's libraries and vDSO.

// Operand flags of an opcode in a map.
const (
	opValid   uint8 = 1 << iota // the opcode is known
	opModRM                     // a ModRM byte (with SIB and displacement) follows
	opI8                        // an 8-bit immediate or displacement
	opI16                       // a 16-bit immediate
	opIZ                        // 16 bits with a 66 prefix, else 32 (a rel32 refuses 66)
	opIV                        // 64 bits with REX.W, else as opIZ (mov $imm, %reg)
	opSpecial                   // decided by specialLen
)

// opMap is a map of 256 opcodes.
type opMap [256]uint8

func (m *opMap) set(flags uint8, ops ...int) {
	for _, op := range ops {
		m[op] = opValid | flags
	}
}

func (m *opMap) setRange(flags uint8, lo, hi int) {
	for op := lo; op <= hi; op++ {
		m[op] = opValid | flags
	}
}

// oneByte is the one-byte opcode map in 64-bit mode, without the prefixes
// and escapes (0f, c4, c5, 62), which lengthAMD64 handles. The opcodes
// invalid in 64-bit mode (push %es, daa, bound, les, lds...) are unknown.
var oneByte = func() (m opMap) {
	for _, base := range []int{0x00, 0x08, 0x10, 0x18, 0x20, 0x28, 0x30, 0x38} {
		m.setRange(opModRM, base, base+3) // add, or, adc, sbb, and, sub, xor, cmp
		m.set(opI8, base+4)
		m.set(opIZ, base+5)
	}
	m.setRange(0, 0x50, 0x5f) // push, pop
	m.set(opModRM, 0x63)      // movslq
	m.set(opIZ, 0x68)         // push $imm
	m.set(opModRM|opIZ, 0x69) // imul $imm
	m.set(opI8, 0x6a)
	m.set(opModRM|opI8, 0x6b)
	m.setRange(0, 0x6c, 0x6f)    // ins, outs
	m.setRange(opI8, 0x70, 0x7f) // jcc rel8
	m.set(opModRM|opI8, 0x80, 0x83)
	m.set(opModRM|opIZ, 0x81)
	m.setRange(opModRM, 0x84, 0x8e)
	m.set(opSpecial, 0x8f)                   // pop r/m (reg 0); XOP otherwise
	m.setRange(0, 0x90, 0x99)                // xchg, nop, pause, cbw, cwd
	m.setRange(0, 0x9b, 0x9f)                // fwait, pushf, popf, sahf, lahf
	m.set(opSpecial, 0xa0, 0xa1, 0xa2, 0xa3) // mov moffs
	m.setRange(0, 0xa4, 0xa7)                // movs, cmps
	m.set(opI8, 0xa8)
	m.set(opIZ, 0xa9)
	m.setRange(0, 0xaa, 0xaf)    // stos, lods, scas
	m.setRange(opI8, 0xb0, 0xb7) // mov $imm8, %reg8
	m.setRange(opIV, 0xb8, 0xbf) // mov $imm, %reg
	m.set(opModRM|opI8, 0xc0, 0xc1, 0xc6)
	m.set(opI16, 0xc2, 0xca) // ret $imm16, lret $imm16
	m.set(0, 0xc3, 0xc9, 0xcb, 0xcc, 0xcf)
	m.set(opModRM|opIZ, 0xc7)
	m.set(opSpecial, 0xc8) // enter $imm16, $imm8
	m.set(opI8, 0xcd)      // int $imm8
	m.setRange(opModRM, 0xd0, 0xd3)
	m.set(0, 0xd7)                  // xlat
	m.setRange(opModRM, 0xd8, 0xdf) // x87
	m.setRange(opI8, 0xe0, 0xe7)    // loop, jrcxz, in, out
	m.set(opIZ, 0xe8, 0xe9)         // call, jmp rel32
	m.set(opI8, 0xeb)               // jmp rel8
	m.setRange(0, 0xec, 0xef)       // in, out
	m.set(0, 0xf1, 0xf4, 0xf5)      // int1, hlt, cmc
	m.set(opSpecial, 0xf6, 0xf7)    // test $imm (reg 0, 1), not, neg, mul, div...
	m.setRange(0, 0xf8, 0xfd)       // clc, stc, cli, sti, cld, std
	m.set(opSpecial, 0xfe, 0xff)    // inc, dec, call, jmp, push (no reg 7)
	return m
}()

// twoByte is the 0f map (legacy encodings). 0f 38 and 0f 3a are escapes.
var twoByte = func() (m opMap) {
	m.setRange(opModRM, 0x00, 0x03)
	m.set(0, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0b, 0x0e) // syscall, clts, sysret, invd, wbinvd, ud2, femms
	m.set(opModRM, 0x0d)                               // prefetch
	m.set(opModRM|opI8, 0x0f)                          // 3DNow!: the opcode is the last byte
	m.setRange(opModRM, 0x10, 0x1f)                    // SSE moves, hint nops (prefetch, endbr64, nopl)
	m.setRange(opSpecial, 0x20, 0x23)                  // mov %crN, %drN
	m.setRange(opModRM, 0x28, 0x2f)
	m.setRange(0, 0x30, 0x35) // wrmsr, rdtsc, rdmsr, rdpmc, sysenter, sysexit
	m.set(0, 0x37)            // getsec
	m.setRange(opModRM, 0x40, 0x6f)
	m.setRange(opModRM|opI8, 0x70, 0x73) // pshufd, shifts by $imm8
	m.setRange(opModRM, 0x74, 0x76)
	m.set(0, 0x77)         // emms
	m.set(opSpecial, 0x78) // vmread; extrq and insertq (66, f2) have two imm8
	m.set(opModRM, 0x79)   // vmwrite, extrq, insertq
	m.setRange(opModRM, 0x7c, 0x7f)
	m.setRange(opIZ, 0x80, 0x8f) // jcc rel32
	m.setRange(opModRM, 0x90, 0x9f)
	m.set(0, 0xa0, 0xa1, 0xa2, 0xa8, 0xa9, 0xaa) // push/pop %fs/%gs, cpuid, rsm
	m.set(opModRM, 0xa3, 0xa5, 0xab, 0xad, 0xae, 0xaf)
	m.set(opModRM|opI8, 0xa4, 0xac, 0xba, 0xc2, 0xc4, 0xc5, 0xc6)
	m.setRange(opModRM, 0xb0, 0xb7)
	m.set(opSpecial, 0xb8) // popcnt with f3; jmpe without
	m.set(opModRM, 0xb9, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 0xc0, 0xc1, 0xc3, 0xc7)
	m.setRange(0, 0xc8, 0xcf) // bswap
	m.setRange(opModRM, 0xd0, 0xff)
	return m
}()

// map0f38 and map0f3a are the legacy three-byte maps: every 0f 38 opcode
// takes a ModRM and no immediate, every 0f 3a one a ModRM and an imm8;
// only the opcodes that some instruction uses are known.
var map0f38 = func() (m opMap) {
	m.setRange(opModRM, 0x00, 0x0b) // pshufb ... pmulhrsw
	m.set(opModRM, 0x10, 0x14, 0x15, 0x17, 0x1c, 0x1d, 0x1e)
	m.setRange(opModRM, 0x20, 0x25)
	m.setRange(opModRM, 0x28, 0x2b)
	m.setRange(opModRM, 0x30, 0x35)
	m.setRange(opModRM, 0x37, 0x41)
	m.setRange(opModRM, 0x80, 0x82) // invept, invvpid, invpcid
	m.setRange(opModRM, 0xc8, 0xcd) // sha
	m.set(opModRM, 0xcf)            // gf2p8mulb
	m.setRange(opModRM, 0xd8, 0xdf) // aes, aes kl
	m.setRange(opModRM, 0xf0, 0xf6) // movbe, crc32, wrss, adcx, adox
	m.setRange(opModRM, 0xf8, 0xfc) // movdir64b, enqcmd, movdiri, encodekey, aadd
	return m
}()

var map0f3a = func() (m opMap) {
	m.setRange(opModRM|opI8, 0x08, 0x0f) // round, blend, palignr
	m.setRange(opModRM|opI8, 0x14, 0x17) // pextr, pinsr, extractps
	m.setRange(opModRM|opI8, 0x20, 0x22)
	m.setRange(opModRM|opI8, 0x40, 0x42)
	m.set(opModRM|opI8, 0x44) // pclmulqdq
	m.setRange(opModRM|opI8, 0x60, 0x63)
	m.set(opModRM|opI8, 0xcc, 0xce, 0xcf, 0xdf) // sha1rnds4, gf2p8affine, aeskeygenassist
	return m
}()

// vexLen returns the length of what follows a VEX or EVEX prefix: the
// opcode, ModRM with its SIB and displacement, and an imm8, in map mm (1:
// 0f, 2: 0f 38, 3: 0f 3a, 5 and 6: the EVEX FP16 maps). Every opcode of
// these maps takes a ModRM, but vzeroupper and vzeroall (VEX 0f 77); the
// ones of 0f 3a and a few of 0f take an imm8.
func vexLen(code []byte, mm byte, evex bool) (int, error) {
	if len(code) == 0 {
		return 0, x86asm.ErrTruncated
	}
	op := code[0]
	imm := 0
	switch mm {
	case 1:
		switch op {
		case 0x77:
			if evex {
				return 0, x86asm.ErrUnrecognized
			}
			return 1, nil
		case 0x70, 0x71, 0x72, 0x73, 0xc2, 0xc4, 0xc5, 0xc6:
			imm = 1
		}
	case 2:
	case 3:
		imm = 1
	case 5, 6:
		if !evex {
			return 0, x86asm.ErrUnrecognized
		}
	default:
		return 0, x86asm.ErrUnrecognized
	}
	n, err := modrmLen(code[1:])
	if err != nil {
		return 0, err
	}
	return 1 + n + imm, nil
}

// lengthAMD64 returns the length of the x86-64 instruction at the start of
// code: x86asm.ErrTruncated when code ends before it does, and
// x86asm.ErrUnrecognized when it is not in the tables (or longer than the
// 15 bytes an instruction may have).
func lengthAMD64(code []byte) (int, error) {
	n, err := lengthRaw(code)
	switch {
	case err != nil:
		return 0, err
	case n > 15:
		return 0, x86asm.ErrUnrecognized
	case n > len(code):
		return 0, x86asm.ErrTruncated
	}
	return n, nil
}

// prefixes are the legacy prefixes read before an opcode.
type prefixes struct {
	n      int  // how many bytes, a REX prefix included
	opsize bool // 66
	addr   bool // 67
	rep    byte // f2 or f3, the last one
	lock   bool // f0
	rex    byte // 0 or the REX byte
}

func readPrefixes(code []byte) (prefixes, error) {
	var p prefixes
	for ; p.n < len(code); p.n++ {
		switch c := code[p.n]; c {
		case 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65:
		case 0x66:
			p.opsize = true
		case 0x67:
			p.addr = true
		case 0xf0:
			p.lock = true
		case 0xf2, 0xf3:
			p.rep = c
		default:
			if c&0xf0 != 0x40 {
				return p, nil
			}
			// REX: only right before the opcode, and only one.
			p.rex = c
			p.n++
			if p.n >= len(code) {
				return p, x86asm.ErrTruncated
			}
			if isPrefix(code[p.n]) {
				return p, x86asm.ErrUnrecognized
			}
			return p, nil
		}
	}
	return p, x86asm.ErrTruncated
}

func isPrefix(c byte) bool {
	switch c {
	case 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3:
		return true
	}
	return c&0xf0 == 0x40
}

func lengthRaw(code []byte) (int, error) {
	p, err := readPrefixes(code)
	if err != nil {
		return 0, err
	}
	rest := code[p.n:]
	switch rest[0] {
	case 0xc4, 0xc5, 0x62:
		if p.opsize || p.rep != 0 || p.lock || p.rex != 0 {
			return 0, x86asm.ErrUnrecognized // #UD
		}
		n, err := vexEVEXLen(rest)
		return p.n + n, err
	case 0x0f:
		if len(rest) < 2 {
			return 0, x86asm.ErrTruncated
		}
		switch rest[1] {
		case 0x38:
			n, err := mapLen(&map0f38, rest[2:], p)
			return p.n + 2 + n, err
		case 0x3a:
			n, err := mapLen(&map0f3a, rest[2:], p)
			return p.n + 2 + n, err
		}
		n, err := mapLen(&twoByte, rest[1:], p)
		return p.n + 1 + n, err
	}
	if rest[0] == 0x9b {
		n, err := fwaitLen(rest, p)
		return p.n + n, err
	}
	n, err := mapLen(&oneByte, rest, p)
	return p.n + n, err
}

// fwaitLen returns the length of fwait (9b) and, as objdump shows them,
// of the x87 instruction (d8 to df) that follows it, after prefixes: fwait
// with fnstsw is fstsw, with fnstcw fstcw, and so on. code[0] is the 9b.
func fwaitLen(code []byte, p prefixes) (int, error) {
	if p.rex != 0 {
		return 0, x86asm.ErrUnrecognized
	}
	i := 1
	for ; i < len(code) && isPrefix(code[i]); i++ {
	}
	switch {
	case i == len(code):
		return 0, x86asm.ErrTruncated
	case code[i] >= 0xd8 && code[i] <= 0xdf:
		n, err := modrmLen(code[i+1:])
		return i + 1 + n, err
	case code[i] == 0x9b:
		return 0, x86asm.ErrUnrecognized
	}
	return 1, nil
}

// vexEVEXLen returns the length of a VEX or EVEX instruction, code[0]
// being c4, c5 or 62.
func vexEVEXLen(code []byte) (int, error) {
	var head int
	var mm byte
	switch code[0] {
	case 0xc5: // c5 RvvvvLpp
		head, mm = 2, 1
	case 0xc4: // c4 RXBmmmmm WvvvvLpp
		if len(code) < 3 {
			return 0, x86asm.ErrTruncated
		}
		head, mm = 3, code[1]&0x1f
	case 0x62: // 62 RXBR'0mmm Wvvvv1pp zL'LbV'aaa
		if len(code) < 4 {
			return 0, x86asm.ErrTruncated
		}
		if code[1]&0x08 != 0 || code[2]&0x04 == 0 {
			return 0, x86asm.ErrUnrecognized // APX or invalid
		}
		head, mm = 4, code[1]&0x07
	}
	if len(code) < head {
		return 0, x86asm.ErrTruncated
	}
	n, err := vexLen(code[head:], mm, code[0] == 0x62)
	return head + n, err
}

// mapLen returns the length of the opcode at code[0] of m and what follows
// it, p being the prefixes before it.
func mapLen(m *opMap, code []byte, p prefixes) (int, error) {
	if len(code) == 0 {
		return 0, x86asm.ErrTruncated
	}
	op := code[0]
	f := m[op]
	if f&opValid == 0 {
		return 0, x86asm.ErrUnrecognized
	}
	if f&opSpecial != 0 {
		return specialLen(m, code, p)
	}
	n := 1
	if f&opModRM != 0 {
		l, err := modrmLen(code[1:])
		if err != nil {
			return 0, err
		}
		n += l
	}
	switch {
	case f&opI8 != 0:
		n++
	case f&opI16 != 0:
		n += 2
	case f&opIV != 0 && p.rex&0x08 != 0:
		n += 8
	case f&(opIZ|opIV) != 0:
		if p.opsize && p.rex&0x08 == 0 { // REX.W wins over 66
			if isBranch(m, op) {
				// call/jmp/jcc with 66: rel32 on Intel, rel16 on
				// AMD and in objdump
				return 0, x86asm.ErrUnrecognized
			}
			n += 2
		} else {
			n += 4
		}
	}
	return n, nil
}

// isBranch reports whether op of m is a call, jmp or jcc with a rel32.
func isBranch(m *opMap, op byte) bool {
	if m == &oneByte {
		return op == 0xe8 || op == 0xe9
	}
	return m == &twoByte && op >= 0x80 && op <= 0x8f
}

// specialLen decodes the opcodes whose length depends on their ModRM or
// prefixes more than the tables can say.
func specialLen(m *opMap, code []byte, p prefixes) (int, error) {
	op := code[0]
	reg := byte(0xff)
	if len(code) > 1 {
		reg = code[1] >> 3 & 7
	}
	modrm := func(imm int) (int, error) {
		n, err := modrmLen(code[1:])
		return 1 + n + imm, err
	}
	if m == &twoByte {
		switch op {
		case 0x20, 0x21, 0x22, 0x23: // mov %crN/%drN: the ModRM is a register whatever its mod
			return 2, nil
		case 0x78: // vmread; extrq, insertq $imm8, $imm8 (AMD SSE4a)
			if p.opsize || p.rep != 0 {
				return 0, x86asm.ErrUnrecognized
			}
			return modrm(0)
		case 0xb8: // popcnt
			if p.rep != 0xf3 {
				return 0, x86asm.ErrUnrecognized
			}
			return modrm(0)
		}
		return 0, x86asm.ErrUnrecognized
	}
	switch op {
	case 0x8f: // pop r/m; XOP when reg is not 0
		if reg == 0xff {
			return 0, x86asm.ErrTruncated
		}
		if reg != 0 {
			return 0, x86asm.ErrUnrecognized
		}
		return modrm(0)
	case 0xa0, 0xa1, 0xa2, 0xa3: // mov moffs64 (moffs32 with 67)
		if p.addr {
			return 5, nil
		}
		return 9, nil
	case 0xc8: // enter $imm16, $imm8
		return 4, nil
	case 0xf6, 0xf7: // test $imm (reg 0 and 1)
		if reg == 0xff {
			return 0, x86asm.ErrTruncated
		}
		imm := 0
		switch {
		case reg > 1:
		case op == 0xf6:
			imm = 1
		case p.opsize && p.rex&0x08 == 0:
			imm = 2
		default:
			imm = 4
		}
		return modrm(imm)
	case 0xfe, 0xff: // inc, dec (fe); call, lcall, jmp, ljmp, push (ff)
		if reg == 0xff {
			return 0, x86asm.ErrTruncated
		}
		if op == 0xfe && reg > 1 || op == 0xff && reg == 7 {
			return 0, x86asm.ErrUnrecognized
		}
		return modrm(0)
	}
	return 0, x86asm.ErrUnrecognized
}

// modrmLen returns the length of a ModRM byte with its SIB byte and
// displacement (32- or 64-bit addressing).
func modrmLen(code []byte) (int, error) {
	if len(code) == 0 {
		return 0, x86asm.ErrTruncated
	}
	modrm := code[0]
	mod, rm := modrm>>6, modrm&7
	n := 1
	if mod != 3 && rm == 4 { // SIB
		if len(code) < 2 {
			return 0, x86asm.ErrTruncated
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
	return n, nil
}
