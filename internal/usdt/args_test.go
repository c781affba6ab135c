package usdt

import (
	"debug/elf"
	"runtime"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
)

func reg(name string, off, size, shift int) Register {
	return Register{Name: name, Offset: off, Size: size, Shift: shift}
}

func TestParseArgX86(t *testing.T) {
	tests := []argTest{
		{"8@%rdi", Arg{Size: 8, Kind: KindRegister, Reg: reg("rdi", 112, 8, 0)}},
		{"-4@%eax", Arg{Size: 4, Signed: true, Kind: KindRegister, Reg: reg("eax", 80, 4, 0)}},
		{"-4@%r8d", Arg{Size: 4, Signed: true, Kind: KindRegister, Reg: reg("r8d", 72, 4, 0)}},
		{"2@%ax", Arg{Size: 2, Kind: KindRegister, Reg: reg("ax", 80, 2, 0)}},
		{"1@%al", Arg{Size: 1, Kind: KindRegister, Reg: reg("al", 80, 1, 0)}},
		{"-1@%ah", Arg{Size: 1, Signed: true, Kind: KindRegister, Reg: reg("ah", 80, 1, 8)}},
		{"1@%dh", Arg{Size: 1, Kind: KindRegister, Reg: reg("dh", 96, 1, 8)}},
		{"-1@%r9b", Arg{Size: 1, Signed: true, Kind: KindRegister, Reg: reg("r9b", 64, 1, 0)}},
		{"2@%r10w", Arg{Size: 2, Kind: KindRegister, Reg: reg("r10w", 56, 2, 0)}},
		{"1@%sil", Arg{Size: 1, Kind: KindRegister, Reg: reg("sil", 104, 1, 0)}},
		{"8@%r15", Arg{Size: 8, Kind: KindRegister, Reg: reg("r15", 0, 8, 0)}},
		{"8@%rsp", Arg{Size: 8, Kind: KindRegister, Reg: reg("rsp", 152, 8, 0)}},
		{"-4@$5", Arg{Size: 4, Signed: true, Kind: KindImmediate, Value: 5}},
		{"-4@$-1", Arg{Size: 4, Signed: true, Kind: KindImmediate, Value: -1}},
		{"8@$0x10", Arg{Size: 8, Kind: KindImmediate, Value: 16}},
		{"8@$12345678901", Arg{Size: 8, Kind: KindImmediate, Value: 12345678901}},
		{"-8@-8(%rbp)", Arg{Size: 8, Signed: true, Kind: KindMemory, Reg: reg("rbp", 32, 8, 0), Offset: -8, Scale: 1}},
		{"4@(%rax)", Arg{Size: 4, Kind: KindMemory, Reg: reg("rax", 80, 8, 0), Scale: 1}},
		{"-4@112(%rsp)", Arg{Size: 4, Signed: true, Kind: KindMemory, Reg: reg("rsp", 152, 8, 0), Offset: 112, Scale: 1}},
		{"8@8(%rax,%rbx,4)", Arg{Size: 8, Kind: KindMemory, Reg: reg("rax", 80, 8, 0), Index: reg("rbx", 40, 8, 0), Scale: 4, Offset: 8}},
		{"8@(%rax,%rcx)", Arg{Size: 8, Kind: KindMemory, Reg: reg("rax", 80, 8, 0), Index: reg("rcx", 88, 8, 0), Scale: 1}},
		{"4@-0x10(,%rdx,8)", Arg{Size: 4, Kind: KindMemory, Index: reg("rdx", 96, 8, 0), Scale: 8, Offset: -16}},
		{"4@array(,%rax,4)", Arg{Size: 4, Kind: KindMemory, Index: reg("rax", 80, 8, 0), Scale: 4, Symbol: "array"}},
		{"-8@counter(%rip)", Arg{Size: 8, Signed: true, Kind: KindStatic, Symbol: "counter"}},
		{"4@counter+16(%rip)", Arg{Size: 4, Kind: KindStatic, Symbol: "counter", Offset: 16}},
		{"4@x.1234-4(%rip)", Arg{Size: 4, Kind: KindStatic, Symbol: "x.1234", Offset: -4}},
		{"4@counter", Arg{Size: 4, Kind: KindStatic, Symbol: "counter"}},
		{"4@0x601040", Arg{Size: 4, Kind: KindStatic, Offset: 0x601040, Addr: 0x601040, Resolved: true}},
		// 32-bit registers of an i386 process, in the x86-64 pt_regs.
		{"-4@%ebp", Arg{Size: 4, Signed: true, Kind: KindRegister, Reg: reg("ebp", 32, 4, 0)}},
		{"4@8(%esp)", Arg{Size: 4, Kind: KindMemory, Reg: reg("esp", 152, 4, 0), Offset: 8, Scale: 1}},
	}
	checkArgs(t, elf.EM_X86_64, tests)
}

func TestParseArgARM64(t *testing.T) {
	tests := []argTest{
		{"8@x0", Arg{Size: 8, Kind: KindRegister, Reg: reg("x0", 0, 8, 0)}},
		{"-4@w1", Arg{Size: 4, Signed: true, Kind: KindRegister, Reg: reg("w1", 8, 4, 0)}},
		{"8@x30", Arg{Size: 8, Kind: KindRegister, Reg: reg("x30", 240, 8, 0)}},
		{"8@sp", Arg{Size: 8, Kind: KindRegister, Reg: reg("sp", 248, 8, 0)}},
		{"-4@[sp, 8]", Arg{Size: 4, Signed: true, Kind: KindMemory, Reg: reg("sp", 248, 8, 0), Offset: 8, Scale: 1}},
		{"8@[x1]", Arg{Size: 8, Kind: KindMemory, Reg: reg("x1", 8, 8, 0), Scale: 1}},
		{"8@[x29, -16]", Arg{Size: 8, Kind: KindMemory, Reg: reg("x29", 232, 8, 0), Offset: -16, Scale: 1}},
		{"8@[x2, #24]", Arg{Size: 8, Kind: KindMemory, Reg: reg("x2", 16, 8, 0), Offset: 24, Scale: 1}},
		{"8@[x2, x3]", Arg{Size: 8, Kind: KindMemory, Reg: reg("x2", 16, 8, 0), Index: reg("x3", 24, 8, 0), Scale: 1}},
		{"-4@5", Arg{Size: 4, Signed: true, Kind: KindImmediate, Value: 5}},
		{"-4@-5", Arg{Size: 4, Signed: true, Kind: KindImmediate, Value: -5}},
		{"4@#7", Arg{Size: 4, Kind: KindImmediate, Value: 7}},
		{"8@xzr", Arg{Size: 8, Kind: KindImmediate}},
	}
	checkArgs(t, elf.EM_AARCH64, tests)
}

func TestParseArgsSplit(t *testing.T) {
	args, err := ParseArgs(elf.EM_AARCH64, "-4@[sp, 8] 8@x0  -8@[x29, -16] 4@5")
	if err != nil {
		t.Fatal(err)
	}
	var specs []string
	for _, a := range args {
		specs = append(specs, a.Spec)
	}
	if got := strings.Join(specs, "|"); got != "-4@[sp, 8]|8@x0|-8@[x29, -16]|4@5" {
		t.Errorf("split %q", got)
	}
	args, err = ParseArgs(elf.EM_X86_64, "8@%rbp 8@%r12 -4@%eax")
	if err != nil || len(args) != 3 || args[2].Reg.Name != "eax" {
		t.Errorf("got %+v, %v", args, err)
	}
	if args, err := ParseArgs(elf.EM_X86_64, ""); err != nil || len(args) != 0 {
		t.Errorf("empty: %v %v", args, err)
	}
}

func TestParseArgErrors(t *testing.T) {
	tests := []struct {
		m    elf.Machine
		spec string
		want string
	}{
		{elf.EM_X86_64, "%rdi", "no size"},
		{elf.EM_X86_64, "x@%rdi", "not a number"},
		{elf.EM_X86_64, "3@%rdi", "only 1, 2, 4 and 8"},
		{elf.EM_X86_64, "16@%rdi", "only 1, 2, 4 and 8"},
		{elf.EM_X86_64, "8@", "no operand"},
		{elf.EM_X86_64, "8@%xmm0", "unsupported register %xmm0"},
		{elf.EM_X86_64, "8@%fs:0x28", "segment"},
		{elf.EM_X86_64, "8@8(%rip)", "no symbol"},
		{elf.EM_X86_64, "8@8(%rax,%rbx,3)", "scale"},
		{elf.EM_X86_64, "8@$sym", "immediate"},
		{elf.EM_X86_64, "8@8(%rax)x", "after ')'"},
		{elf.EM_X86_64, "8@%rip", "not a value register"},
		{elf.EM_X86_64, "8@8(%rax", "unbalanced"},
		{elf.EM_AARCH64, "8@x31", "unsupported operand"},
		{elf.EM_AARCH64, "8@[x1, #:lo12:counter]", "relocation"},
		{elf.EM_AARCH64, "8@[x1, x2, lsl #3]", "shifted"},
		{elf.EM_AARCH64, "8@[x1, 8]!", "pre/post"},
		{elf.EM_AARCH64, "8@[q1]", "bad base register"},
		{elf.EM_PPC64, "8@%r3", "not supported"},
	}
	for _, tt := range tests {
		_, err := ParseArgs(tt.m, tt.spec)
		if err == nil {
			t.Errorf("%v %q: no error", tt.m, tt.spec)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %q: error %q, want it to say %q", tt.m, tt.spec, err, tt.want)
		}
		if !strings.Contains(err.Error(), "cannot decode argument") {
			t.Errorf("%q: error %q does not say which argument", tt.spec, err)
		}
	}
}

func TestCtxOffset(t *testing.T) {
	for name, want := range map[string]int{"rax": 80, "eax": 80, "al": 80, "ah": 81, "bh": 41, "r12d": 24} {
		r, ok := X86Register(name)
		if !ok || r.CtxOffset() != want {
			t.Errorf("%s: CtxOffset %d, want %d", name, r.CtxOffset(), want)
		}
	}
}

func TestDTraceName(t *testing.T) {
	for in, want := range map[string]string{
		"request__start":            "request-start",
		"function__entry":           "function-entry",
		"gc_done":                   "gc_done",
		"import__find__load__start": "import-find-load-start",
		"a___b":                     "a-_b",
	} {
		if got := DTraceName(in); got != want {
			t.Errorf("DTraceName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPtRegsBTF checks the x86-64 register table against the running
// kernel's own struct pt_regs, from its BTF.
func TestPtRegsBTF(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the kernel's pt_regs is not x86-64's on %s", runtime.GOARCH)
	}
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	var st *btf.Struct
	if err := spec.TypeByName("pt_regs", &st); err != nil {
		t.Skipf("pt_regs not in kernel BTF: %v", err)
	}
	kernel := map[string]int{}
	for _, m := range st.Members {
		kernel[m.Name] = int(m.Offset.Bytes())
	}
	// Our register name -> the kernel's pt_regs member.
	for ours, theirs := range map[string]string{
		"r15": "r15", "r14": "r14", "r13": "r13", "r12": "r12", "rbp": "bp", "rbx": "bx",
		"r11": "r11", "r10": "r10", "r9": "r9", "r8": "r8", "rax": "ax", "rcx": "cx",
		"rdx": "dx", "rsi": "si", "rdi": "di", "rip": "ip", "rsp": "sp",
	} {
		off, ok := kernel[theirs]
		if !ok {
			t.Errorf("kernel pt_regs has no member %s", theirs)
			continue
		}
		r, _ := X86Register(ours)
		if r.Offset != off {
			t.Errorf("%%%s: offset %d, kernel's pt_regs.%s is at %d", ours, r.Offset, theirs, off)
		}
	}
}

type argTest struct {
	spec string
	want Arg
}

// checkArgs parses each spec for machine m and compares with want.
func checkArgs(t *testing.T, m elf.Machine, tests []argTest) {
	t.Helper()
	for _, tt := range tests {
		got, err := ParseArg(m, tt.spec)
		if err != nil {
			t.Errorf("%s: %v", tt.spec, err)
			continue
		}
		tt.want.Spec = tt.spec
		if got != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.spec, got, tt.want)
		}
	}
}
