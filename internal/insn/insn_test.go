package insn

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/arch/x86/x86asm"
)

// cat concatenates hand-assembled instructions.
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// x86-64 instructions, encoded by hand (and checked with objdump -d).
var (
	pushRBP    = []byte{0x55}                                                          // push %rbp
	movRSPRBP  = []byte{0x48, 0x89, 0xe5}                                              // mov %rsp,%rbp
	movEDIm4   = []byte{0x89, 0x7d, 0xfc}                                              // mov %edi,-0x4(%rbp)
	movm4EAX   = []byte{0x8b, 0x45, 0xfc}                                              // mov -0x4(%rbp),%eax
	popRBP     = []byte{0x5d}                                                          // pop %rbp
	ret        = []byte{0xc3}                                                          // ret
	retImm     = []byte{0xc2, 0x08, 0x00}                                              // ret $0x8
	repRet     = []byte{0xf3, 0xc3}                                                    // rep ret (old AMD branch-predictor idiom)
	bndRet     = []byte{0xf2, 0xc3}                                                    // bnd ret (MPX)
	endbr64    = []byte{0xf3, 0x0f, 0x1e, 0xfa}                                        // endbr64 (CET)
	xorEAX     = []byte{0x31, 0xc0}                                                    // xor %eax,%eax
	cmpEDI3    = []byte{0x83, 0xff, 0x03}                                              // cmp $0x3,%edi
	leaEAX     = []byte{0x8d, 0x04, 0x3f}                                              // lea (%rdi,%rdi,1),%eax
	nop        = []byte{0x90}                                                          // nop
	int3       = []byte{0xcc}                                                          // int3
	csNopw     = []byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}                   // cs nopw 0x0(%rax,%rax,1): GCC's padding
	nopl       = []byte{0x0f, 0x1f, 0x40, 0x00}                                        // nopl 0x0(%rax)
	rdpkru     = []byte{0x0f, 0x01, 0xee}                                              // rdpkru: unknown to x86asm
	rdsspq     = []byte{0xf3, 0x48, 0x0f, 0x1e, 0xc8}                                  // rdsspq %rax: unknown to x86asm
	jmpRAX     = []byte{0xff, 0xe0}                                                    // jmp *%rax
	notrackJmp = []byte{0x3e, 0xff, 0xe0}                                              // notrack jmp *%rax: a switch with -fcf-protection
	jmpR11     = []byte{0x41, 0xff, 0xe3}                                              // jmp *%r11
	jmpGOT     = []byte{0xff, 0x25, 0x10, 0x20, 0x00, 0x00}                            // jmp *0x2010(%rip): through the GOT
	callRel    = []byte{0xe8, 0x00, 0x01, 0x00, 0x00}                                  // call .+0x105
	bad        = []byte{0x06}                                                          // push %es: invalid in 64-bit mode
	movImm64   = []byte{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}                            // movabs $0x0807060504030201,%rax
	vmovupsZMM = []byte{0x62, 0xf1, 0x7c, 0x48, 0x10, 0x07}                            // vmovups (%rdi),%zmm0 (EVEX)
	movRIP     = []byte{0x48, 0x8b, 0x05, 0x11, 0x22, 0x33, 0x00}                      // mov 0x332211(%rip),%rax
	lockCmpxch = []byte{0xf0, 0x0f, 0xb1, 0x17}                                        // lock cmpxchg %edx,(%rdi)
	ud2        = []byte{0x0f, 0x0b}                                                    // ud2
	trunc      = []byte{0x48, 0x8b}                                                    // the first two bytes of a mov
	jmp32      = func(rel int32) []byte { return le32(0xe9, rel) }                     // jmp rel32
	jmp8       = func(rel int8) []byte { return []byte{0xeb, byte(rel)} }              // jmp rel8
	jne32      = func(rel int32) []byte { return le32(0x0f, 0x85, rel) }               // jne rel32
	jg8        = func(rel int8) []byte { return []byte{0x7f, byte(rel)} }              // jg rel8
	bndJmp32   = func(rel int32) []byte { return append([]byte{0xf2}, jmp32(rel)...) } // bnd jmp rel32
	jne8       = func(rel int8) []byte { return []byte{0x75, byte(rel)} }              // jne rel8

	vzeroupper   = []byte{0xc5, 0xf8, 0x77}                               // vzeroupper: no ModRM
	vpcmpeqbYMM  = []byte{0xc5, 0xfd, 0x74, 0x0f}                         // vpcmpeqb (%rdi),%ymm0,%ymm1
	vpmovmskb    = []byte{0xc5, 0xfd, 0xd7, 0xc1}                         // vpmovmskb %ymm1,%eax
	vpbroadcastb = []byte{0xc4, 0xe2, 0x7d, 0x78, 0x44, 0x24, 0x08}       // vpbroadcastb 0x8(%rsp),%ymm0
	vpalignr     = []byte{0xc4, 0xe3, 0x7d, 0x0f, 0xc1, 0x04}             // vpalignr $0x4,%ymm1,%ymm0,%ymm0: imm8 (0f 3a)
	vpshufd      = []byte{0xc5, 0xfd, 0x70, 0xc0, 0x1b}                   // vpshufd $0x1b,%ymm0,%ymm0: imm8 (0f 70)
	vpcmpbK      = []byte{0x62, 0xf3, 0x7d, 0x28, 0x3f, 0x4f, 0x01, 0x00} // vpcmpeqb 0x20(%rdi),%ymm0,%k1 (EVEX, disp8*N)
	fstsw        = []byte{0x9b, 0xdf, 0xe0}                               // fstsw %ax: fwait; fnstsw, one line in objdump
	xopVpcmov    = []byte{0x8f, 0xe8, 0x78, 0xa2, 0xc2, 0x30}             // vpcmov (AMD XOP)
	callRel16    = []byte{0x66, 0xe8, 0x00, 0x00, 0x00, 0x00}             // data16 call
)

func le32(v ...any) []byte {
	var b []byte
	for _, x := range v {
		switch x := x.(type) {
		case int:
			b = append(b, byte(x))
		case int32:
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
	}
	return b
}

func TestBoundariesAMD64(t *testing.T) {
	for _, c := range []struct {
		name string
		code []byte
		want []uint64
	}{
		{"frame pointer prologue and epilogue",
			cat(pushRBP, movRSPRBP, movEDIm4, movm4EAX, popRBP, ret), []uint64{0, 1, 4, 7, 10, 11}},
		{"endbr64 at the start is one 4-byte instruction",
			cat(endbr64, xorEAX, ret), []uint64{0, 4, 6}},
		{"GCC padding after the ret: cs nopw, nopl, int3, nop",
			cat(ret, csNopw, nopl, int3, nop), []uint64{0, 1, 11, 15, 16}},
		{"instructions x86asm does not know: rdpkru, rdsspq",
			cat(rdpkru, rdsspq, ret), []uint64{0, 3, 8}},
		{"long ones: movabs, EVEX, rip-relative, lock",
			cat(movImm64, vmovupsZMM, movRIP, lockCmpxch, ret), []uint64{0, 10, 16, 23, 27}},
		{"indirect jumps",
			cat(jmpRAX, notrackJmp, jmpR11, jmpGOT), []uint64{0, 2, 5, 8}},
		{"VEX and EVEX: vzeroupper (no ModRM), imm8 in 0f 3a and 0f 70, EVEX disp8",
			cat(vzeroupper, vpalignr, vpshufd, vpcmpbK, ret), []uint64{0, 3, 9, 14, 22}},
		{"fwait with the x87 instruction after it", cat(fstsw, nop), []uint64{0, 3}},
	} {
		got, err := Boundaries("amd64", Func{Addr: 0x1000, Code: c.code})
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: Boundaries = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func TestBoundariesErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		code    []byte
		want    []uint64 // the boundaries before the failure
		off     uint64
		wantErr error
	}{
		{"invalid opcode after the ret", cat(xorEAX, ret, bad), []uint64{0, 2}, 3, x86asm.ErrUnrecognized},
		{"invalid opcode mid-function", cat(xorEAX, bad, ret), []uint64{0}, 2, x86asm.ErrUnrecognized},
		{"cut short", cat(xorEAX, trunc), []uint64{0}, 2, x86asm.ErrTruncated},
		{"endbr64 cut short", endbr64[:3], []uint64{}, 0, x86asm.ErrTruncated},
	} {
		got, err := Boundaries("amd64", Func{Addr: 0x1000, Code: c.code})
		var de *DecodeError
		if !errors.As(err, &de) || de.Off != c.off || de.Err != c.wantErr || !slices.Equal(got, c.want) {
			t.Errorf("%s: Boundaries = %v, %v; want %v and a DecodeError at %#x (%v)", c.name, got, err, c.want, c.off, c.wantErr)
		}
	}
	if _, err := Boundaries("amd64", Func{Addr: 0x1000}); err == nil {
		t.Error("Boundaries of no code: no error")
	}
}

func TestCheckOffset(t *testing.T) {
	frame := Func{Addr: 0x401000, Code: cat(pushRBP, movRSPRBP, movEDIm4, movm4EAX, popRBP, ret)}
	withBad := Func{Addr: 0x401000, Code: cat(pushRBP, movRSPRBP, movEDIm4, movm4EAX, popRBP, ret, bad)}
	for _, c := range []struct {
		f    Func
		off  uint64
		want string // "" for nil
	}{
		{frame, 0, ""},
		{frame, 1, ""},
		{frame, 4, ""},
		{frame, 11, ""},
		// A byte that does not decode puts every offset in doubt.
		{withBad, 0, "offset 0x0: the function's instructions are not known for certain: cannot decode the instruction at offset 0xc (06): unrecognized instruction"},
		{withBad, 11, "offset 0xb: the function's instructions are not known for certain: cannot decode the instruction at offset 0xc (06): unrecognized instruction"},
		{frame, 3, "offset 0x3 is inside the instruction at 0x1 (mov %rsp,%rbp, 3 bytes)"},
		{frame, 2, "offset 0x2 is inside the instruction at 0x1 (mov %rsp,%rbp, 3 bytes)"},
		{frame, 9, "offset 0x9 is inside the instruction at 0x7 (mov -0x4(%rbp),%eax, 3 bytes)"},
		{withBad, 12, "offset 0xc: the function's instructions are not known for certain: cannot decode the instruction at offset 0xc (06): unrecognized instruction"},
		{frame, 12, "offset 0xc is past the end of the function (0xc bytes)"},
		{frame, 100, "offset 0x64 is past the end of the function (0xc bytes)"},
		{Func{Code: cat(vzeroupper, ret)}, 3, ""},
		{Func{Code: cat(vzeroupper, ret)}, 1, "offset 0x1 is inside the instruction at 0x0 (vzeroupper, 3 bytes)"},
		{Func{Code: cat(fstsw, ret)}, 1, "offset 0x1 is inside the instruction at 0x0 (.byte 0x9b 0xdf 0xe0, 3 bytes)"},
		{Func{Code: cat(jne8(2), movRIP, ret)}, 9, "offset 0x9: the function's instructions are not known for certain: cannot decode the instruction at offset 0x2 (48 8b 05 11 22 33 00 c3): a jump goes into the middle of this instruction: data among the code, or misdecoded (the one at 0x0 goes to 0x4)"},
		{Func{Code: cat(endbr64, ret)}, 1, "offset 0x1 is inside the instruction at 0x0 (endbr64, 4 bytes)"},
		{Func{Code: cat(endbr64, ret)}, 4, ""},
		{Func{Code: cat(rdpkru, ret)}, 2, "offset 0x2 is inside the instruction at 0x0 (.byte 0x0f 0x01 0xee, 3 bytes)"},
		// The jump's target is printed as an address, as objdump does.
		{Func{Addr: 0x1000, Code: cat(jmp32(0x100), ret)}, 1, "offset 0x1 is inside the instruction at 0x0 (jmpq 0x1105, 5 bytes)"},
		{Func{Code: cat(xorEAX, bad, ret)}, 3, "offset 0x3: the function's instructions are not known for certain: cannot decode the instruction at offset 0x2 (06 c3): unrecognized instruction"},
	} {
		err := CheckOffset("amd64", c.f, c.off)
		if got := errString(err); got != c.want {
			t.Errorf("CheckOffset(% x, %#x) = %q, want %q", c.f.Code, c.off, got, c.want)
		}
	}
	var de *DecodeError
	if err := CheckOffset("amd64", withBad, 12); !errors.As(err, &de) || de.Off != 12 {
		t.Errorf("CheckOffset on a bad byte: %v, want a DecodeError at 0xc", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestReturnsAMD64(t *testing.T) {
	for _, c := range []struct {
		name  string
		code  []byte
		want  []uint64 // Returns
		sites []Site   // ReturnSites, when it differs from Returns as Rets
	}{
		{"ret", ret, []uint64{0}, nil},
		{"ret $imm16", cat(xorEAX, retImm), []uint64{2}, nil},
		{"rep ret", cat(xorEAX, repRet), []uint64{2}, nil},
		{"bnd ret", cat(xorEAX, bndRet), []uint64{2}, nil},
		{"two rets, padding between and after",
			cat(endbr64, cmpEDI3, jg8(4), leaEAX, ret, nopl, leaEAX, ret, csNopw, int3), []uint64{0xc, 0x14}, nil},
		// int f(int x) { if (x > 3) return g1(x); return x * 2; } at -O2:
		// endbr64; cmp $3,%edi; jg 1f; lea (%rdi,%rdi),%eax; ret; nopl; 1: jmp g1
		{"gcc -O2 tail call",
			cat(endbr64, cmpEDI3, jg8(8), leaEAX, ret, nopl, jmp32(0x9b)), []uint64{0xc, 0x11},
			[]Site{{Off: 0xc, Kind: Ret}, {Off: 0x11, Kind: Jump, Target: 0x1000 + 0x16 + 0x9b}}},
		{"tail jmp rel8 to just past the end",
			cat(xorEAX, jmp8(0)), []uint64{2},
			[]Site{{Off: 2, Kind: Jump, Target: 0x1004}}},
		{"tail jmp rel32 backwards, before the start",
			cat(xorEAX, jmp32(-0x100)), []uint64{2},
			[]Site{{Off: 2, Kind: Jump, Target: 0x1007 - 0x100}}},
		{"bnd jmp out",
			cat(xorEAX, bndJmp32(0x10)), []uint64{2},
			[]Site{{Off: 2, Kind: Jump, Target: 0x1008 + 0x10}}},
		{"jmp within the function (a loop) is no return",
			cat(xorEAX, jg8(1), ret, jmp8(-5)), []uint64{4}, nil},
		{"jmp to the start is no return",
			cat(xorEAX, jmp8(-4)), nil, nil},
		{"conditional jumps out: ReturnSites only",
			cat(cmpEDI3, jne32(0x100), jg8(-12), ret), []uint64{0xb},
			[]Site{
				{Off: 3, Kind: CondJump, Cond: 5, Target: 0x1009 + 0x100},
				{Off: 9, Kind: CondJump, Cond: 0xf, Target: 0x1000 - 1},
				{Off: 0xb, Kind: Ret},
			}},
		{"jcc to the start is no return", cat(cmpEDI3, jg8(-5), ret), []uint64{5}, nil},
		{"indirect jumps are no returns",
			cat(xorEAX, jmpRAX, notrackJmp, jmpR11, jmpGOT, ret), []uint64{0x10}, nil},
		{"call is no return", cat(callRel, ret), []uint64{5}, nil},
		{"noreturn function: none", cat(pushRBP, callRel, ud2), nil, nil},
		{"AVX2: vzeroupper is 3 bytes, the ret after it found",
			cat(vpcmpeqbYMM, vpmovmskb, vzeroupper, ret), []uint64{11}, nil},
		{"EVEX and VEX with a ModRM and SIB, then rets",
			cat(vmovupsZMM, vpbroadcastb, ret, vzeroupper, ret), []uint64{13, 17}, nil},
		{"fwait; fnstsw is one instruction (fstsw)", cat(fstsw, ret), []uint64{3}, nil},
		{"jump over a lock prefix (glibc's single-thread atomics)",
			cat(jne8(1), lockCmpxch, ret), []uint64{6}, nil},
	} {
		f := Func{Addr: 0x1000, Code: c.code}
		got, err := Returns("amd64", f)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: Returns = %#x, %v; want %#x", c.name, got, err, c.want)
		}
		want := c.sites
		if want == nil {
			for _, o := range c.want {
				want = append(want, Site{Off: o, Kind: Ret})
			}
		}
		sites, err := ReturnSites("amd64", f)
		if err != nil || !slices.Equal(sites, want) {
			t.Errorf("%s: ReturnSites = %+v, %v; want %+v", c.name, sites, err, want)
		}
	}
}

func TestReturnsErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		code []byte
		want []uint64
		off  uint64
	}{
		{"undecodable mid-function", cat(xorEAX, bad, ret), nil, 2},
		{"undecodable after a ret and more code", cat(ret, xorEAX, bad), nil, 3},
		{"undecodable after a call (noreturn?)", cat(ret, callRel, nop, bad), nil, 7},
		{"undecodable after the last ret", cat(xorEAX, ret, bad, bad), nil, 3},
		{"undecodable after a ret and padding", cat(xorEAX, ret, csNopw, int3, nop, bad), nil, 0xf},
		{"undecodable after a tail jump", cat(xorEAX, jmp32(0x100), bad), nil, 7},
		{"undecodable after ud2", cat(ret, xorEAX, ud2, trunc), nil, 5},
		{"cut short", cat(ret, xorEAX, trunc), nil, 3},
		{"XOP (AMD) is not known", cat(xopVpcmov, ret), nil, 0},
		{"a jump into the middle of the mov after it", cat(jne8(2), movRIP, ret), nil, 2},
		{"call rel32 with 66 and no REX.W: rel16 or rel32 by CPU", cat(callRel16, ret), nil, 0},
	} {
		got, err := Returns("amd64", Func{Addr: 0x1000, Code: c.code})
		var de *DecodeError
		if !errors.As(err, &de) || de.Off != c.off || !slices.Equal(got, c.want) {
			t.Errorf("%s: Returns = %v, %v; want %v and a DecodeError at %#x", c.name, got, err, c.want, c.off)
		}
	}
	if _, err := Returns("amd64", Func{Addr: 0x1000}); err == nil {
		t.Error("Returns of no code: no error")
	}
}

// arm64 instructions (little-endian words).
func a64(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return b
}

const (
	a64Stp   = 0xa9bf7bfd // stp x29, x30, [sp, #-16]!
	a64MovFP = 0x910003fd // mov x29, sp
	a64Ldp   = 0xa8c17bfd // ldp x29, x30, [sp], #16
	a64Ret   = 0xd65f03c0 // ret
	a64RetX1 = 0xd65f0020 // ret x1
	a64RetAA = 0xd65f0bff // retaa
	a64Br    = 0xd61f0200 // br x16
	a64Nop   = 0xd503201f // nop
	a64Cbz   = 0xb4000040 // cbz x0, .+8
)

func a64B(words int32) uint32 { return 0x14000000 | uint32(words)&0x03ffffff } // b .+4*words

func TestARM64(t *testing.T) {
	f := Func{Addr: 0x4000, Code: a64(a64Stp, a64MovFP, a64Cbz, a64Ldp, a64Ret, a64B(-2), a64RetX1, a64RetAA, a64Br, a64B(2), a64B(-11), a64Nop)}
	got, err := Boundaries("arm64", f)
	if err != nil || len(got) != 12 || got[11] != 44 {
		t.Errorf("Boundaries = %v, %v", got, err)
	}
	if _, err := Boundaries("arm64", Func{Code: f.Code[:10]}); err == nil {
		t.Error("Boundaries of 10 bytes: no error")
	}
	for _, c := range []struct {
		off  uint64
		want string
	}{
		{0, ""}, {8, ""}, {44, ""},
		{2, "offset 0x2 is inside the instruction at 0x0 (stp x29, x30, [sp,#-16]!, 4 bytes)"},
		{17, "offset 0x11 is inside the instruction at 0x10 (ret, 4 bytes)"},
		{48, "offset 0x30 is past the end of the function (0x30 bytes)"},
	} {
		if got := errString(CheckOffset("arm64", f, c.off)); got != c.want {
			t.Errorf("CheckOffset(%#x) = %q, want %q", c.off, got, c.want)
		}
	}
	// The rets at 0x10, 0x18 and 0x1c; b -2 (0x14) stays inside, br x16
	// (0x20) is indirect; b +2 at 0x24 goes to 0x2c, inside; b -11 at 0x28
	// goes before the start: a tail call.
	rets, err := Returns("arm64", f)
	if want := []uint64{0x10, 0x18, 0x1c, 0x28}; err != nil || !slices.Equal(rets, want) {
		t.Errorf("Returns = %#x, %v; want %#x", rets, err, want)
	}
	sites, _ := ReturnSites("arm64", f)
	if len(sites) != 4 || sites[3] != (Site{Off: 0x28, Kind: Jump, Target: 0x4000 + 0x28 - 44}) {
		t.Errorf("ReturnSites = %+v", sites)
	}
	// b +2 as the last instruction: to past the end.
	if rets, _ := Returns("arm64", Func{Code: a64(a64Nop, a64B(1))}); !slices.Equal(rets, []uint64{4}) {
		t.Errorf("Returns of a trailing b: %v", rets)
	}
}

func TestUnsupported(t *testing.T) {
	f := Func{Code: ret}
	const want = "instruction decoding for riscv64 is not supported"
	_, err1 := Boundaries("riscv64", f)
	err2 := CheckOffset("riscv64", f, 0)
	_, err3 := Returns("riscv64", f)
	_, err4 := ReturnSites("riscv64", f)
	for _, err := range []error{err1, err2, err3, err4} {
		if errString(err) != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

const libc = "/lib/x86_64-linux-gnu/libc.so.6"

// funcs reads the functions with a size of an ELF file's symbol table (or
// dynamic symbol table): by name, and once each (aliases and symbol
// versions of a function share its address).
func funcs(t *testing.T, ef *elf.File, dynamic bool) (map[string]Func, []Func) {
	t.Helper()
	syms, err := ef.Symbols()
	if dynamic {
		syms, err = ef.DynamicSymbols()
	}
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Func{}
	var all []Func
	seen := map[uint64]Func{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		if f, ok := seen[s.Value]; ok {
			byName[s.Name] = f
			continue
		}
		sec := ef.Sections[s.Section]
		code := make([]byte, s.Size)
		if _, err := sec.ReadAt(code, int64(s.Value-sec.Addr)); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		f := Func{Addr: s.Value, Code: code}
		seen[s.Value], byName[s.Name] = f, f
		all = append(all, f)
	}
	return byName, all
}

// checkSites checks that the sites of f are where the instructions say.
func checkSites(t *testing.T, name string, f Func, sites []Site) {
	t.Helper()
	for _, s := range sites {
		if err := CheckOffset("amd64", f, s.Off); err != nil {
			t.Errorf("%s: site %+v: %v", name, s, err)
			continue
		}
		in, _ := decodeAMD64(f.Code[s.Off:])
		r, isRel := in.Args[0].(x86asm.Rel)
		rel := int64(r)
		target := f.Addr + s.Off + uint64(in.Len) + uint64(rel)
		inside := target >= f.Addr && target < f.Addr+uint64(len(f.Code))
		switch {
		case s.Kind == Ret && in.Op == x86asm.RET:
		case s.Kind == Jump && in.Op == x86asm.JMP && isRel && !inside && s.Target == target:
		case s.Kind == CondJump && in.Op != x86asm.JMP && isRel && !inside && s.Target == target:
		default:
			t.Errorf("%s: site %+v is %v", name, s, x86asm.GNUSyntax(in, f.Addr+s.Off, nil))
		}
	}
}

func TestLibc(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("not amd64")
	}
	ef, err := elf.Open(libc)
	if err != nil {
		t.Skip(err)
	}
	defer ef.Close()
	byName, fns := funcs(t, ef, true)
	if len(fns) < 1000 {
		t.Fatalf("only %d functions in %s", len(fns), libc)
	}

	// A few ordinary functions: all have rets.
	for _, name := range []string{"malloc", "free", "getenv", "atoi", "qsort", "puts", "fclose", "strtol"} {
		f, ok := byName[name]
		if !ok {
			t.Errorf("%s: not in .dynsym", name)
			continue
		}
		offs, err := Boundaries("amd64", f)
		if err != nil || len(offs) < 2 {
			t.Errorf("%s: Boundaries = %d offsets, %v", name, len(offs), err)
		}
		for _, o := range offs {
			if err := CheckOffset("amd64", f, o); err != nil {
				t.Errorf("%s: CheckOffset(%#x): %v", name, o, err)
			}
		}
		sites, err := ReturnSites("amd64", f)
		if err != nil || len(sites) == 0 || sites[0].Kind != Ret && sites[0].Kind != Jump {
			t.Errorf("%s: ReturnSites = %+v, %v", name, sites, err)
		}
		checkSites(t, name, f, sites)
	}

	// Every function.
	var boundOK, retOK, nRet, nJump, nCond, nInsn int
	start := time.Now()
	for _, f := range fns {
		name := fmt.Sprintf("function at %#x", f.Addr)
		offs, err := Boundaries("amd64", f)
		nInsn += len(offs)
		if err == nil {
			boundOK++
		} else {
			t.Logf("%s: %v", name, err)
		}
		sites, _ := ReturnSites("amd64", f)
		checkSites(t, name, f, sites)
		uncond := 0
		for _, s := range sites {
			switch s.Kind {
			case Ret:
				nRet++
				uncond++
			case Jump:
				nJump++
				uncond++
			case CondJump:
				nCond++
			}
		}
		if uncond > 0 {
			retOK++
		}
	}
	t.Logf("%s: %d functions, %d instructions; Boundaries decoded %d; Returns found sites in %d; %d rets, %d tail jumps, %d conditional jumps out; %v",
		libc, len(fns), nInsn, boundOK, retOK, nRet, nJump, nCond, time.Since(start))
	if boundOK*100 <= len(fns)*99 {
		t.Errorf("Boundaries decoded only %d of %d functions", boundOK, len(fns))
	}
	if retOK*10 <= len(fns)*9 {
		t.Errorf("Returns found sites in only %d of %d functions", retOK, len(fns))
	}

	// Returns alone over all of libc: well under a second.
	start = time.Now()
	for _, f := range fns {
		_, _ = Returns("amd64", f)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Returns over libc took %v", d)
	} else {
		t.Logf("Returns over libc: %v", d)
	}
}

// The C test program: f has one ret and one tail call (objdump -d of GCC
// 12's -O2 output: endbr64; cmp $0x3,%edi; jg f+0x10; lea
// (%rdi,%rdi,1),%eax; ret; nopl; jmp g1). sw switches through a jump table
// (notrack jmp *%rax with -fcf-protection) and has a ret per case.
const cProgram = `
int g1(int);
int f(int x) { if (x > 3) return g1(x); return x * 2; }
int sw(int x, int y) {
	switch (x) {
	case 0: return y + 1;
	case 1: return g1(y) * 3;
	case 2: return y * 7;
	case 3: return y - 9;
	case 4: return g1(y + 2) + 1;
	case 5: return y ^ 0x55;
	}
	return 0;
}
`

// g1 and main are compiled separately, so that f cannot inline g1.
const cMain = `
int f(int); int sw(int, int);
int g1(int x) { return x + 1; }
int main(int argc, char **argv) { (void)argv; return f(argc) + sw(argc, argc); }
`

func TestGCC(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("not amd64")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	for name, src := range map[string]string{"f.c": cProgram, "main.c": cMain} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "t")
	build := func(flags ...string) error {
		args := append([]string{"-O2", "-o", bin}, flags...)
		args = append(args, filepath.Join(dir, "f.c"), filepath.Join(dir, "main.c"))
		out, err := exec.Command(gcc, args...).CombinedOutput()
		if err != nil {
			t.Logf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return err
	}
	if build("-fcf-protection=full") != nil && build() != nil {
		t.Fatal("gcc failed")
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	fns, _ := funcs(t, ef, false)
	f, g1, sw := fns["f"], fns["g1"], fns["sw"]
	if f.Code == nil || g1.Code == nil || sw.Code == nil {
		t.Fatalf("f, g1 or sw missing from the symbol table")
	}

	// f: exactly one ret and one tail call to g1.
	rets, err := Returns("amd64", f)
	if err != nil || len(rets) != 2 {
		t.Fatalf("f: Returns = %#x, %v; want 2 sites", rets, err)
	}
	sites, _ := ReturnSites("amd64", f)
	kinds := []Kind{sites[0].Kind, sites[1].Kind}
	slices.Sort(kinds)
	if len(sites) != 2 || kinds[0] != Ret || kinds[1] != Jump {
		t.Errorf("f: ReturnSites = %+v, want a ret and a jump", sites)
	}
	for _, s := range sites {
		if s.Kind == Jump && s.Target != g1.Addr {
			t.Errorf("f: the tail call goes to %#x, not g1 (%#x)", s.Target, g1.Addr)
		}
	}
	checkSites(t, "f", f, sites)
	if bytes.HasPrefix(f.Code, endbr64) {
		want := "offset 0x1 is inside the instruction at 0x0 (endbr64, 4 bytes)"
		if got := errString(CheckOffset("amd64", f, 1)); got != want {
			t.Errorf("f: CheckOffset(1) = %q, want %q", got, want)
		}
	}

	// f as a symbol of size 0 would be passed: up to the next symbol,
	// with GCC's padding after it (data16 cs nopw).
	_, all := funcs(t, ef, false)
	next := uint64(0)
	for _, g := range all {
		if g.Addr > f.Addr && (next == 0 || g.Addr < next) {
			next = g.Addr
		}
	}
	if next > f.Addr+uint64(len(f.Code)) {
		text := ef.Section(".text")
		padded := Func{Addr: f.Addr, Code: make([]byte, next-f.Addr)}
		if _, err := text.ReadAt(padded.Code, int64(f.Addr-text.Addr)); err != nil {
			t.Fatal(err)
		}
		if _, err := Boundaries("amd64", padded); err != nil {
			t.Errorf("f with its padding: %v", err)
		}
		if got, err := Returns("amd64", padded); err != nil || !slices.Equal(got, rets) {
			t.Errorf("f with its padding: Returns = %#x, %v; want %#x", got, err, rets)
		}
	}

	// Every offset of f and sw is checked right.
	for name, fn := range map[string]Func{"f": f, "sw": sw} {
		offs, err := Boundaries("amd64", fn)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for o := uint64(0); o < uint64(len(fn.Code)); o++ {
			err := CheckOffset("amd64", fn, o)
			if _, isStart := slices.BinarySearch(offs, o); isStart != (err == nil) {
				t.Errorf("%s: CheckOffset(%#x) = %v, boundary %v", name, o, err, isStart)
			}
		}
	}

	// sw: an indirect jump that is no return, a ret per case; the default
	// case may be in sw.cold, reached by a conditional jump.
	offs, _ := Boundaries("amd64", sw)
	indirect := -1
	for _, o := range offs {
		in, _ := decodeAMD64(sw.Code[o:])
		if _, isRel := in.Args[0].(x86asm.Rel); in.Op == x86asm.JMP && !isRel {
			indirect = int(o)
		}
	}
	if indirect < 0 {
		t.Errorf("sw: no indirect jump")
	}
	sites, err = ReturnSites("amd64", sw)
	if err != nil {
		t.Fatal(err)
	}
	checkSites(t, "sw", sw, sites)
	nret := 0
	for _, s := range sites {
		if int(s.Off) == indirect {
			t.Errorf("sw: the indirect jump is a return site")
		}
		if s.Kind == Ret {
			nret++
		}
		if cold, ok := fns["sw.cold"]; ok && s.Target == cold.Addr {
			t.Logf("sw: %v at %#x to sw.cold", s.Kind, s.Off)
		}
	}
	if nret < 4 {
		t.Errorf("sw: %d rets, want at least 4: %+v", nret, sites)
	}
}
