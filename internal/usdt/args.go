package usdt

import (
	"debug/elf"
	"fmt"
	"strconv"
	"strings"
)

// Kind says where a probe argument's value lives.
type Kind uint8

const (
	// KindRegister: the value is in register Reg.
	KindRegister Kind = iota + 1
	// KindImmediate: the value is the constant Value.
	KindImmediate
	// KindMemory: the value is in memory at
	//
	//	Reg + Index*Scale + Offset (+ the address of Symbol, when set)
	//
	// where Reg and Index may be absent (Name == ""). Symbol is set only
	// for non-PIC code such as "array(,%rax,4)"; its link-time address is
	// in Addr (add the load bias for a relocated object).
	KindMemory
	// KindStatic: the value is in memory at a fixed link-time address:
	// rip-relative ("counter(%rip)", "counter+16(%rip)") or absolute
	// ("counter", "0x601040", non-PIC x86 only). Symbol and Offset are as
	// written; Addr is Symbol's address plus Offset when Resolved. At run
	// time the address is Addr plus the load bias of the object.
	KindStatic
)

func (k Kind) String() string {
	switch k {
	case KindRegister:
		return "register"
	case KindImmediate:
		return "immediate"
	case KindMemory:
		return "memory"
	case KindStatic:
		return "static"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Register names a general-purpose register, or part of one, by its place
// in the kernel's struct pt_regs (the context of a uprobe BPF program) for
// the probe's architecture.
type Register struct {
	Name   string // as written, without the '%': "eax", "r8d", "ah", "w1", "sp"
	Offset int    // byte offset of the whole 64-bit register in struct pt_regs
	Size   int    // bytes of the part named: 8 (%rax, x0), 4 (%eax, w0), 2 (%ax), 1 (%al, %ah)
	Shift  int    // bit position of the part in the register: 8 for %ah, %bh, %ch, %dh, else 0
}

// CtxOffset is the byte offset in struct pt_regs of the part of the
// register named, for a little-endian machine (x86, arm64): %ah is at
// Offset+1. A load of Size bytes there reads exactly the part named.
func (r Register) CtxOffset() int { return r.Offset + r.Shift/8 }

// Arg is one decoded argument of a probe, e.g. "-4@%eax" or "8@-16(%rbp)".
//
// The consumer reads the location (Reg.Size bytes of a register; Size
// bytes of memory; or the constant), then truncates or extends the value
// to Size bytes, sign-extending when Signed.
type Arg struct {
	Spec   string // as written, e.g. "-4@%eax"
	Size   int    // 1, 2, 4 or 8 bytes
	Signed bool   // the size was written negative
	Kind   Kind

	Reg   Register // KindRegister: the register; KindMemory: the base register (Name "" when none)
	Index Register // KindMemory: the index register (Name "" when none)
	Scale int      // KindMemory: the index scale, 1, 2, 4 or 8 (1 when there is no index)

	Value  int64  // KindImmediate: the constant
	Offset int64  // KindMemory: the displacement; KindStatic: the addend after Symbol (or the address when there is no symbol)
	Symbol string // KindStatic, KindMemory: the symbol in the displacement, "" when none

	Addr     uint64 // KindStatic, KindMemory with Symbol: link-time address of Symbol+Offset
	Resolved bool   // Addr is known (from the ELF symbol table, or an absolute address)
}

// ArgError reports an argument specification that could not be decoded.
type ArgError struct {
	Spec string // the whole argument string or the one argument
	Msg  string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("usdt: cannot decode argument %q: %s", e.Spec, e.Msg)
}

// ParseArgs decodes a probe's argument string (space-separated
// "[-]N@operand" items, as in a .note.stapsdt note) for machine m.
// Supported machines: elf.EM_X86_64 and elf.EM_386 (AT&T operands; the
// registers of a 32-bit process on an x86-64 kernel are in the 64-bit
// pt_regs), and elf.EM_AARCH64.
//
// x86 operands: %reg (every 64/32/16/8-bit general register name,
// %ah..%dh included); $imm; disp(base), disp(base,index), disp(base,index,scale),
// disp(,index,scale) with disp a number or sym, sym+N, sym-N, or absent;
// sym(%rip) and sym+N(%rip); a bare sym, sym+N or number (absolute memory).
// Not supported: segment prefixes (%fs:...), numeric rip-relative
// displacements (they are meaningless outside an instruction), and
// non-general registers (%xmm0, ...).
//
// arm64 operands: xN, wN, sp, wsp (xzr, wzr decode as the immediate 0);
// immediates "5", "-5", "#5", "0x10"; memory [reg], [reg, N], [reg, #N]
// and [reg, xM]. Not supported: :lo12:sym offsets, shifted or extended
// index registers, pre/post-indexing.
func ParseArgs(m elf.Machine, spec string) ([]Arg, error) {
	items, err := splitArgs(spec)
	if err != nil {
		return nil, err
	}
	args := make([]Arg, 0, len(items))
	for _, it := range items {
		a, err := ParseArg(m, it)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

// splitArgs splits at white space outside brackets and parentheses (arm64
// writes "[sp, 8]" with a space).
func splitArgs(s string) ([]string, error) {
	var out []string
	depth, start := 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
			if depth < 0 {
				return nil, &ArgError{Spec: s, Msg: fmt.Sprintf("unbalanced %q", c)}
			}
		case (c == ' ' || c == '\t' || c == '\n') && depth == 0:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if depth != 0 {
		return nil, &ArgError{Spec: s, Msg: "unbalanced brackets"}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out, nil
}

// ParseArg decodes one "[-]N@operand" item for machine m (see ParseArgs).
func ParseArg(m elf.Machine, spec string) (Arg, error) {
	a := Arg{Spec: spec}
	fail := func(format string, v ...any) (Arg, error) {
		return Arg{}, &ArgError{Spec: spec, Msg: fmt.Sprintf(format, v...)}
	}
	at := strings.IndexByte(spec, '@')
	if at < 0 {
		return fail("no size: want [-]N@operand")
	}
	n, err := strconv.Atoi(spec[:at])
	if err != nil {
		return fail("size %q is not a number", spec[:at])
	}
	if n < 0 {
		a.Signed = true
		n = -n
	}
	switch n {
	case 1, 2, 4, 8:
		a.Size = n
	default:
		return fail("size %d: only 1, 2, 4 and 8 bytes are supported", n)
	}
	op := strings.TrimSpace(spec[at+1:])
	if op == "" {
		return fail("no operand after '@'")
	}
	switch m {
	case elf.EM_X86_64, elf.EM_386:
		err = parseX86(&a, op)
	case elf.EM_AARCH64:
		err = parseARM64(&a, op)
	default:
		return fail("operands of machine %v are not supported", m)
	}
	if err != nil {
		return fail("%v", err)
	}
	if a.Kind == KindMemory && a.Scale == 0 {
		a.Scale = 1
	}
	return a, nil
}

// x86-64 struct pt_regs, arch/x86/include/asm/ptrace.h.
var x86Regs = func() map[string]Register {
	type gpr struct {
		off   int
		names [4]string // 64, 32, 16, 8 bit (low)
		high  string    // 8-bit high part
	}
	gprs := []gpr{
		{0, [4]string{"r15", "r15d", "r15w", "r15b"}, ""},
		{8, [4]string{"r14", "r14d", "r14w", "r14b"}, ""},
		{16, [4]string{"r13", "r13d", "r13w", "r13b"}, ""},
		{24, [4]string{"r12", "r12d", "r12w", "r12b"}, ""},
		{32, [4]string{"rbp", "ebp", "bp", "bpl"}, ""},
		{40, [4]string{"rbx", "ebx", "bx", "bl"}, "bh"},
		{48, [4]string{"r11", "r11d", "r11w", "r11b"}, ""},
		{56, [4]string{"r10", "r10d", "r10w", "r10b"}, ""},
		{64, [4]string{"r9", "r9d", "r9w", "r9b"}, ""},
		{72, [4]string{"r8", "r8d", "r8w", "r8b"}, ""},
		{80, [4]string{"rax", "eax", "ax", "al"}, "ah"},
		{88, [4]string{"rcx", "ecx", "cx", "cl"}, "ch"},
		{96, [4]string{"rdx", "edx", "dx", "dl"}, "dh"},
		{104, [4]string{"rsi", "esi", "si", "sil"}, ""},
		{112, [4]string{"rdi", "edi", "di", "dil"}, ""},
		{152, [4]string{"rsp", "esp", "sp", "spl"}, ""},
	}
	m := map[string]Register{}
	for _, g := range gprs {
		for i, name := range g.names {
			m[name] = Register{Name: name, Offset: g.off, Size: 8 >> i}
		}
		if g.high != "" {
			m[g.high] = Register{Name: g.high, Offset: g.off, Size: 1, Shift: 8}
		}
	}
	// Intel's names for the low bytes of r8..r15.
	for i := 8; i <= 15; i++ {
		r := m[fmt.Sprintf("r%db", i)]
		r.Name = fmt.Sprintf("r%dl", i)
		m[r.Name] = r
	}
	m["rip"] = Register{Name: "rip", Offset: 128, Size: 8}
	m["eip"] = Register{Name: "eip", Offset: 128, Size: 4}
	return m
}()

// X86Register returns the pt_regs location of an x86 register name
// written without '%' ("eax", "r8d", "ah").
func X86Register(name string) (Register, bool) {
	r, ok := x86Regs[name]
	return r, ok
}

func parseX86Reg(s string) (Register, error) {
	if !strings.HasPrefix(s, "%") {
		return Register{}, fmt.Errorf("%q is not a register", s)
	}
	r, ok := x86Regs[s[1:]]
	if !ok {
		return Register{}, fmt.Errorf("unsupported register %s", s)
	}
	return r, nil
}

func parseX86(a *Arg, op string) error {
	switch {
	case strings.HasPrefix(op, "$"):
		v, err := parseInt(op[1:])
		if err != nil {
			return fmt.Errorf("immediate %s: %w", op, err)
		}
		a.Kind, a.Value = KindImmediate, v
		return nil
	case strings.HasPrefix(op, "%"):
		if strings.Contains(op, ":") {
			return fmt.Errorf("segment-relative operand %s is not supported", op)
		}
		r, err := parseX86Reg(op)
		if err != nil {
			return err
		}
		if r.Name == "rip" || r.Name == "eip" {
			return fmt.Errorf("%s is not a value register", op)
		}
		a.Kind, a.Reg = KindRegister, r
		return nil
	}
	disp, rest := op, ""
	if i := strings.IndexByte(op, '('); i >= 0 {
		if !strings.HasSuffix(op, ")") {
			return fmt.Errorf("memory operand %s: text after ')'", op)
		}
		disp, rest = op[:i], op[i+1:len(op)-1]
	}
	sym, off, err := parseDisp(disp)
	if err != nil {
		return fmt.Errorf("displacement %q: %w", disp, err)
	}
	a.Symbol, a.Offset = sym, off
	if rest == "" && !strings.Contains(op, "(") {
		// Absolute memory: "counter", "counter+4", "0x601040".
		if disp == "" {
			return fmt.Errorf("empty operand")
		}
		a.Kind = KindStatic
		if sym == "" {
			a.Addr, a.Resolved = uint64(off), true
		}
		return nil
	}
	parts := strings.Split(rest, ",")
	if len(parts) > 3 {
		return fmt.Errorf("memory operand %s: too many parts", op)
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if parts[0] != "" {
		if a.Reg, err = parseX86Reg(parts[0]); err != nil {
			return err
		}
	}
	if len(parts) >= 2 && parts[1] != "" {
		if a.Index, err = parseX86Reg(parts[1]); err != nil {
			return err
		}
		if a.Index.Name == "rip" || a.Index.Name == "eip" {
			return fmt.Errorf("%%rip cannot be an index")
		}
	}
	a.Scale = 1
	if len(parts) == 3 {
		sc, err := strconv.Atoi(parts[2])
		if err != nil || (sc != 1 && sc != 2 && sc != 4 && sc != 8) {
			return fmt.Errorf("scale %q: want 1, 2, 4 or 8", parts[2])
		}
		a.Scale = sc
	}
	if a.Reg.Name == "" && a.Index.Name == "" {
		return fmt.Errorf("memory operand %s has no register", op)
	}
	if a.Reg.Name == "rip" || a.Reg.Name == "eip" {
		if a.Index.Name != "" {
			return fmt.Errorf("rip-relative operand %s with an index", op)
		}
		if sym == "" {
			return fmt.Errorf("rip-relative operand %s has no symbol: a numeric displacement from %%rip has no meaning outside an instruction", op)
		}
		a.Kind, a.Reg, a.Scale = KindStatic, Register{}, 0
		return nil
	}
	a.Kind = KindMemory
	return nil
}

// parseDisp splits an x86 displacement: "", "-8", "0x10", "sym", "sym+16",
// "sym-4", "16+sym" is not accepted.
func parseDisp(s string) (sym string, off int64, err error) {
	if s == "" {
		return "", 0, nil
	}
	if c := s[0]; c == '-' || c == '+' || (c >= '0' && c <= '9') {
		off, err = parseInt(s)
		return "", off, err
	}
	end := 0
	for end < len(s) && isSymChar(s[end]) {
		end++
	}
	sym = s[:end]
	if end == len(s) {
		return sym, 0, nil
	}
	if s[end] != '+' && s[end] != '-' {
		return "", 0, fmt.Errorf("unexpected %q after symbol", s[end])
	}
	off, err = parseInt(s[end:])
	return sym, off, err
}

func isSymChar(c byte) bool {
	return c == '_' || c == '.' || c == '$' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// parseInt parses a signed decimal, 0x hex or 0 octal number.
func parseInt(s string) (int64, error) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" || s[0] == '-' || s[0] == '+' {
		return 0, fmt.Errorf("bad number")
	}
	u, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// arm64 struct user_pt_regs (arch/arm64/include/uapi/asm/ptrace.h), the
// first member of the kernel's struct pt_regs: regs[31], sp, pc, pstate.
const (
	arm64SP = 31 * 8 // 248
	arm64PC = 32 * 8 // 256
)

// ARM64Register returns the pt_regs location of an arm64 register name
// ("x0".."x30", "w0".."w30", "sp", "wsp", "fp", "lr").
func ARM64Register(name string) (Register, bool) {
	switch name {
	case "sp":
		return Register{Name: name, Offset: arm64SP, Size: 8}, true
	case "wsp":
		return Register{Name: name, Offset: arm64SP, Size: 4}, true
	case "fp":
		return Register{Name: name, Offset: 29 * 8, Size: 8}, true
	case "lr":
		return Register{Name: name, Offset: 30 * 8, Size: 8}, true
	}
	if len(name) < 2 || (name[0] != 'x' && name[0] != 'w') {
		return Register{}, false
	}
	n, err := strconv.Atoi(name[1:])
	if err != nil || n < 0 || n > 30 || strconv.Itoa(n) != name[1:] {
		return Register{}, false
	}
	size := 8
	if name[0] == 'w' {
		size = 4
	}
	return Register{Name: name, Offset: 8 * n, Size: size}, true
}

func parseARM64(a *Arg, op string) error {
	if strings.HasPrefix(op, "[") {
		if !strings.HasSuffix(op, "]") {
			return fmt.Errorf("memory operand %s: text after ']' (pre/post-indexing is not supported)", op)
		}
		parts := strings.Split(op[1:len(op)-1], ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		r, ok := ARM64Register(parts[0])
		if !ok {
			return fmt.Errorf("memory operand %s: bad base register %q", op, parts[0])
		}
		a.Kind, a.Reg, a.Scale = KindMemory, r, 1
		switch len(parts) {
		case 1:
		case 2:
			p := parts[1]
			if x, ok := ARM64Register(p); ok {
				a.Index = x
				break
			}
			if strings.Contains(p, ":") {
				return fmt.Errorf("memory operand %s: relocation offsets (%s) are not supported", op, p)
			}
			v, err := parseInt(strings.TrimPrefix(p, "#"))
			if err != nil {
				return fmt.Errorf("memory operand %s: offset %q: %w", op, p, err)
			}
			a.Offset = v
		default:
			return fmt.Errorf("memory operand %s: shifted or extended index registers are not supported", op)
		}
		return nil
	}
	if op == "xzr" || op == "wzr" {
		a.Kind, a.Value = KindImmediate, 0
		return nil
	}
	if r, ok := ARM64Register(op); ok {
		a.Kind, a.Reg = KindRegister, r
		return nil
	}
	v, err := parseInt(strings.TrimPrefix(op, "#"))
	if err != nil {
		return fmt.Errorf("unsupported operand %s", op)
	}
	a.Kind, a.Value = KindImmediate, v
	return nil
}
