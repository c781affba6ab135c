package usdt_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"

	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/usdt"
	"github.com/sonde-trace/sonde/internal/usdt/header"
)

func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	return p
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// TestSysSDT reads probes written by the system's <sys/sdt.h> (Debian:
// systemtap-sdt-dev), with and without semaphores.
func TestSysSDT(t *testing.T) {
	if _, err := os.Stat("/usr/include/sys/sdt.h"); err != nil {
		t.Skip("/usr/include/sys/sdt.h is not installed (systemtap-sdt-dev); the generated header is tested instead")
	}
	gcc := needTool(t, "gcc")
	dir := t.TempDir()
	src := `
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
__extension__ unsigned short app_withsem__fire_semaphore __attribute__((unused)) __attribute__((section(".probes")));
long counter = 9;
__attribute__((noinline)) int f(int n, const char *s) {
	STAP_PROBE2(app, plain, n, s);
	if (__builtin_expect(app_withsem__fire_semaphore, 0))
		STAP_PROBE3(app, withsem__fire, (char)n, (unsigned long)n, counter);
	return n;
}
int main(int argc, char **argv) { return f(argc, argv[0]) - argc; }
`
	if err := os.WriteFile(filepath.Join(dir, "s.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, gcc, "-O2", "-o", "s", "s.c")
	f, err := usdt.Open(filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	plain := f.Lookup("app", "plain")
	fire := f.Lookup("app", "withsem-fire")
	if len(plain) != 1 || len(fire) != 1 {
		t.Fatalf("probes %v", f.Probes)
	}
	if plain[0].Semaphore != 0 || plain[0].Err != nil || plain[0].ArgErr != nil || len(plain[0].Args) != 2 {
		t.Errorf("plain: %+v", plain[0])
	}
	p := fire[0]
	if p.Semaphore == 0 || p.SemaphoreOffset == 0 || p.Err != nil || p.ArgErr != nil || len(p.Args) != 3 {
		t.Fatalf("withsem__fire: %+v", p)
	}
	if a := p.Args[0]; a.Size != 1 || !a.Signed {
		t.Errorf("char arg %+v", a)
	}
	if a := p.Args[1]; a.Size != 8 || a.Signed {
		t.Errorf("unsigned long arg %+v", a)
	}
}

// TestPython lists the probes of the system's Python, built with
// --with-dtrace: sys/sdt.h probes with semaphores.
func TestPython(t *testing.T) {
	var path string
	for _, p := range []string{"/usr/bin/python3", "/usr/bin/python3.11", "/usr/bin/python3.12"} {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			path = r
			break
		}
	}
	if path == "" {
		t.Skip("no /usr/bin/python3")
	}
	f, err := usdt.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Probes) == 0 {
		t.Skipf("%s has no stapsdt notes (not built --with-dtrace)", path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	names := map[string]bool{}
	for _, p := range f.Probes {
		names[p.DName()] = true
		if p.Provider != "python" {
			t.Errorf("%s: provider %q", p, p.Provider)
		}
		if p.Err != nil || p.ArgErr != nil {
			t.Errorf("%s: %v %v (%q)", p, p.Err, p.ArgErr, p.ArgSpec)
			continue
		}
		// sys/sdt.h's probe site is a 1-byte nop.
		if raw[p.Offset] != 0x90 {
			t.Errorf("%s: byte at file offset %#x is %#x, not a nop", p, p.Offset, raw[p.Offset])
		}
		if p.Semaphore == 0 {
			t.Errorf("%s: no semaphore", p)
			continue
		}
		sec := ef.Section(".probes")
		if sec == nil || p.SemaphoreOffset < sec.Offset || p.SemaphoreOffset >= sec.Offset+sec.Size {
			t.Errorf("%s: semaphore offset %#x is not in .probes", p, p.SemaphoreOffset)
		}
		if p.Types != nil {
			t.Errorf("%s: Python has sonde type records?", p)
		}
	}
	for _, want := range []string{"function-entry", "function-return", "line", "gc-start", "gc-done"} {
		if !names[want] {
			t.Errorf("no python:::%s; probes: %v", want, names)
		}
	}
	fe := f.Lookup("python", "function-entry")
	if len(fe) == 0 {
		t.Fatal("no function-entry")
	}
	// function__entry(filename, funcname, lineno): two pointers and an int.
	if a := fe[0].Args; len(a) != 3 || a[0].Size != 8 || a[0].Signed || a[1].Size != 8 || a[2].Size != 4 || !a[2].Signed {
		t.Errorf("function-entry args %q: %+v", fe[0].ArgSpec, a)
	}
	t.Logf("%s: %d probe sites, e.g. %s args %q semaphore offset %#x", path, len(f.Probes), fe[0], fe[0].ArgSpec, fe[0].SemaphoreOffset)
}

// The kernel test: a program built with a generated header, a uprobe on
// each probe site at the file offset the reader computed, with the
// semaphore's file offset as ref_ctr_offset. The BPF program reads every
// argument where the decoded spec says it is and stores it in a map. This
// proves the file offsets, the semaphore offset (the program sees its
// _ENABLED() turn true) and the argument decoding (pt_regs offsets, memory
// and rip-relative operands) against the running kernel.
const kernelDef = `
provider t {
	probe vals(char a, short b, int c, long d, unsigned char e, long g, int k, unsigned char h);
	probe many(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j, long k, int l);
};
`

const kernelApp = `
#include <stdio.h>
#include <stdlib.h>
#include "t.h"
long counter = 123456789012L;
struct big { long v[12]; int w; };
__attribute__((noinline)) void fill(struct big *b, int n) {
	int i;
	for (i = 0; i < 12; i++)
		b->v[i] = (long)(i + 1) * n * 1111;
	b->w = -n;
}
/* A hand-written probe on the high and low byte registers. */
__attribute__((noinline)) void regs(void) {
	__asm__ __volatile__ ("movl $0x12345678, %%eax\n\tmovl $0x9abc, %%ebx\n"
	    _SONDE_NOTE("t", "regs", "t_vals_semaphore", "1@%%ah -1@%%al 2@%%ax 4@%%eax -1@%%bh")
	    ::: "eax", "ebx");
}
int main(int argc, char **argv) {
	struct big s;
	char line[16];
	int n = argc > 1 ? atoi(argv[1]) : 0;
	volatile unsigned short hv = 0x1234;
	unsigned short hx = hv;
	if (!fgets(line, sizeof line, stdin))
		return 1;
	printf("enabled=%d\n", T_VALS_ENABLED());
	fflush(stdout);
	T_VALS((char)n, (short)(n * 100), n * 1000, (long)n * 1000000000L,
	    (unsigned char)n, counter, 7, (unsigned char)(hx >> 8));
	fill(&s, n);
	T_MANY(s.v[0], s.v[1], s.v[2], s.v[3], s.v[4], s.v[5], s.v[6], s.v[7], s.v[8],
	    s.v[9], s.v[10], s.w);
	regs();
	return 0;
}
`

func TestKernelUprobe(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("x86-64 only")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	gcc := needTool(t, "gcc")
	dir := t.TempDir()
	prog, errs := parser.ParseFile("t.d", []byte(kernelDef), &parser.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var h bytes.Buffer
	if err := header.Generate(&h, []*ast.Program{prog}, header.Options{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "t.h"), h.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "app.c"), []byte(kernelApp), 0o644)

	const n = -5
	want := map[string][]int64{
		"vals": {n, n * 100, n * 1000, n * 1000000000, 251, 123456789012, 7, 0x12},
		"many": {n * 1111, 2 * n * 1111, 3 * n * 1111, 4 * n * 1111, 5 * n * 1111, 6 * n * 1111,
			7 * n * 1111, 8 * n * 1111, 9 * n * 1111, 10 * n * 1111, 11 * n * 1111, -n},
		"regs": {0x56, 0x78, 0x5678, 0x12345678, -102},
	}
	kinds := map[usdt.Kind]bool{}
	for _, flags := range [][]string{{"-O0"}, {"-O2"}, {"-O2", "-no-pie", "-fno-pie"}, {"-O1", "-fomit-frame-pointer"}} {
		name := strings.Join(flags, "")
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(dir, "app"+name)
			run(t, dir, gcc, append([]string{"-o", bin, "app.c"}, flags...)...)
			f, err := usdt.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Probes) != 3 {
				t.Fatalf("%d probe sites, want 3", len(f.Probes))
			}
			for _, p := range f.Probes {
				if p.Err != nil || p.ArgErr != nil {
					t.Fatal(p.Err, p.ArgErr)
				}
				t.Logf("%s args %q", p.Name, p.ArgSpec)
				for _, a := range p.Args {
					kinds[a.Kind] = true
				}
			}
			got := traceOnce(t, bin, f.Probes, strconv.Itoa(n))
			for j, p := range f.Probes {
				for i, a := range p.Args {
					v := extend(got[j][i], a)
					if v != want[p.Name][i] {
						t.Errorf("%s arg %d (%s, %s): read %d (raw %#x), want %d", p.Name, i, a.Spec, a.Kind, v, got[j][i], want[p.Name][i])
					}
				}
			}
		})
	}
	t.Logf("argument kinds seen: %v", kinds)
}

func extend(raw uint64, a usdt.Arg) int64 {
	bits := uint(a.Size * 8)
	if bits < 64 {
		raw &= 1<<bits - 1
		if a.Signed && raw&(1<<(bits-1)) != 0 {
			raw |= ^uint64(0) << bits
		}
	}
	return int64(raw)
}

// traceOnce starts bin, attaches to its probes with their semaphores, lets
// the program fire them, and returns the raw argument values the BPF
// programs read, per probe.
func traceOnce(t *testing.T, bin string, probes []*usdt.Probe, arg string) [][]uint64 {
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 16 * uint32(len(probes))})
	if err != nil {
		t.Skipf("cannot create a BPF map: %v", err)
	}
	defer m.Close()

	cmd := exec.Command(bin, arg)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// os/exec returns once the child's execve has released the parent
	// (vfork), which is before the kernel has mapped the new program:
	// wait for the mapping (a hang guard, not a timing).
	var bias uint64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		bias, err = loadBias(cmd.Process.Pid, bin)
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}

	for j, p := range probes {
		insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
		sizes := map[int]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord}
		for i, a := range p.Args {
			switch a.Kind {
			case usdt.KindRegister:
				insns = append(insns, asm.LoadMem(asm.R7, asm.R6, int16(a.Reg.CtxOffset()), sizes[a.Reg.Size]))
			case usdt.KindImmediate:
				insns = append(insns, asm.LoadImm(asm.R7, a.Value, asm.DWord))
			case usdt.KindMemory, usdt.KindStatic:
				if a.Kind == usdt.KindStatic || a.Symbol != "" {
					if !a.Resolved {
						t.Fatalf("%s: unresolved", a.Spec)
					}
					insns = append(insns, asm.LoadImm(asm.R3, int64(bias+a.Addr), asm.DWord))
				} else {
					insns = append(insns, asm.Mov.Imm(asm.R3, 0))
				}
				if a.Kind == usdt.KindMemory {
					if a.Reg.Name != "" {
						insns = append(insns, asm.LoadMem(asm.R4, asm.R6, int16(a.Reg.Offset), asm.DWord), asm.Add.Reg(asm.R3, asm.R4))
					}
					if a.Index.Name != "" {
						insns = append(insns, asm.LoadMem(asm.R4, asm.R6, int16(a.Index.Offset), asm.DWord),
							asm.Mul.Imm(asm.R4, int32(a.Scale)), asm.Add.Reg(asm.R3, asm.R4))
					}
					if a.Symbol == "" {
						insns = append(insns, asm.Add.Imm(asm.R3, int32(a.Offset)))
					}
				}
				insns = append(insns,
					asm.Mov.Imm(asm.R7, 0), asm.StoreMem(asm.R10, -8, asm.R7, asm.DWord),
					asm.Mov.Reg(asm.R1, asm.R10), asm.Add.Imm(asm.R1, -8),
					asm.Mov.Imm(asm.R2, int32(a.Size)),
					asm.FnProbeReadUser.Call(),
					asm.LoadMem(asm.R7, asm.R10, -8, asm.DWord))
			}
			insns = append(insns,
				asm.StoreImm(asm.R10, -16, int64(16*j+i), asm.Word),
				asm.StoreMem(asm.R10, -24, asm.R7, asm.DWord),
				asm.LoadMapPtr(asm.R1, m.FD()),
				asm.Mov.Reg(asm.R2, asm.R10), asm.Add.Imm(asm.R2, -16),
				asm.Mov.Reg(asm.R3, asm.R10), asm.Add.Imm(asm.R3, -24),
				asm.Mov.Imm(asm.R4, 0),
				asm.FnMapUpdateElem.Call())
		}
		// Key 16*j+15: the probe fired.
		insns = append(insns,
			asm.StoreImm(asm.R10, -16, int64(16*j+15), asm.Word),
			asm.Mov.Imm(asm.R7, 1), asm.StoreMem(asm.R10, -24, asm.R7, asm.DWord),
			asm.LoadMapPtr(asm.R1, m.FD()),
			asm.Mov.Reg(asm.R2, asm.R10), asm.Add.Imm(asm.R2, -16),
			asm.Mov.Reg(asm.R3, asm.R10), asm.Add.Imm(asm.R3, -24),
			asm.Mov.Imm(asm.R4, 0),
			asm.FnMapUpdateElem.Call(),
			asm.Mov.Imm(asm.R0, 0), asm.Return())
		bpf, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, Instructions: insns, License: "GPL"})
		if err != nil {
			t.Skipf("cannot load a uprobe program: %v\n%v", err, insns)
		}
		defer bpf.Close()
		ex, err := link.OpenExecutable(bin)
		if err != nil {
			t.Fatal(err)
		}
		l, err := ex.Uprobe("usdt_"+p.Name, bpf, &link.UprobeOptions{Address: p.Offset, RefCtrOffset: p.SemaphoreOffset, PID: cmd.Process.Pid})
		if err != nil {
			t.Skipf("cannot attach a uprobe with a semaphore: %v", err)
		}
		defer l.Close()
	}

	io.WriteString(stdin, "go\n")
	out := bufio.NewReader(stdout)
	line, _ := out.ReadString('\n')
	if line != "enabled=1\n" {
		t.Errorf("the program printed %q: the semaphore at file offset %#x was not counted", line, probes[0].SemaphoreOffset)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not exit")
	}
	vals := make([][]uint64, len(probes))
	for j, p := range probes {
		var fired uint64
		if err := m.Lookup(uint32(16*j+15), &fired); err != nil || fired != 1 {
			t.Fatalf("the probe at file offset %#x did not fire (%v)", p.Offset, err)
		}
		vals[j] = make([]uint64, len(p.Args))
		for i := range vals[j] {
			if err := m.Lookup(uint32(16*j+i), &vals[j][i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return vals
}

// loadBias is where the kernel put bin in process pid, relative to its
// link-time addresses.
func loadBias(pid int, bin string) (uint64, error) {
	ef, err := elf.Open(bin)
	if err != nil {
		return 0, err
	}
	defer ef.Close()
	if ef.Type == elf.ET_EXEC {
		return 0, nil
	}
	var first *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			first = p
			break
		}
	}
	if first == nil {
		return 0, fmt.Errorf("no PT_LOAD")
	}
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		fs := strings.Fields(line)
		if len(fs) < 6 || fs[5] != bin {
			continue
		}
		off, _ := strconv.ParseUint(fs[2], 16, 64)
		if off != first.Off&^0xfff {
			continue
		}
		start, _ := strconv.ParseUint(strings.Split(fs[0], "-")[0], 16, 64)
		return start - first.Vaddr&^0xfff, nil
	}
	return 0, fmt.Errorf("%s is not mapped in process %d", bin, pid)
}
