package pid

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/sym"
)

const libc = "/lib/x86_64-linux-gnu/libc.so.6"

// objdumpInsn is an instruction as objdump -d shows it.
type objdumpInsn struct {
	off  uint64 // from the function's start
	len  int
	text string
}

// disassemble runs objdump -d over the function s of path.
func disassemble(t *testing.T, path string, s sym.Symbol) []objdumpInsn {
	t.Helper()
	out, err := exec.Command("objdump", "-d", "-w", "--insn-width=15",
		fmt.Sprintf("--start-address=%#x", s.Value), fmt.Sprintf("--stop-address=%#x", s.End()), path).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	var insns []objdumpInsn
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(f[0]), ":"), 16, 64)
		if err != nil {
			continue
		}
		insns = append(insns, objdumpInsn{off: a - s.Value, len: len(strings.Fields(f[1])), text: strings.Join(strings.Fields(f[2]), " ")})
	}
	return insns
}

// TestOffsetAVX2 checks offset probes in glibc's __memchr_avx2, whose
// vzeroupper (c5 f8 77) a decoder took for 4 bytes long: the instruction
// after it starts where objdump says, one byte on is inside it. The
// offsets are found with objdump in this machine's libc.
func TestOffsetAVX2(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("not amd64")
	}
	lf, err := sym.OpenFile(libc)
	if err != nil {
		t.Fatal(err)
	}
	fns := lf.Resolve("__memchr_avx2")
	if len(fns) == 0 {
		t.Fatalf("no __memchr_avx2 in %s (debug file %q): install libc6-dbg", libc, lf.DebugFile)
	}
	fn := fns[0]
	insns := disassemble(t, libc, fn)
	// A vzeroupper followed by an instruction of 2 bytes or more that is
	// no VEX one (the kernel cannot probe those).
	var vz, next objdumpInsn
	for i := 0; i+1 < len(insns); i++ {
		n := insns[i+1]
		if insns[i].text == "vzeroupper" && n.len >= 2 && !strings.HasPrefix(n.text, "v") {
			vz, next = insns[i], n
			break
		}
	}
	if vz.len != 3 {
		t.Fatalf("no vzeroupper followed by a non-VEX instruction in __memchr_avx2: %v", insns)
	}
	t.Logf("__memchr_avx2+%#x: vzeroupper; +%#x: %s (%d bytes)", vz.off, next.off, next.text, next.len)

	pid := runtimetest.Spawn(t, libc, "sleep", "1000")
	p := &Provider{}
	probe := func(off uint64) ([]*provider.Probe, error) {
		return p.Probes(provider.Desc{Provider: "pid" + strconv.Itoa(pid), Module: "libc.so.6", Function: "__memchr_avx2", Name: strconv.FormatUint(off, 16)})
	}
	start, _ := lf.VaddrToOffset(fn.Value)
	probes, err := probe(next.off)
	if err != nil || len(probes) != 1 || len(probes[0].Sites) != 1 || probes[0].Sites[0].Offset != start+next.off {
		t.Errorf("__memchr_avx2:%x (%s): %v, %v; want one site at file offset %#x", next.off, next.text, probes, err, start+next.off)
	}
	for _, c := range []struct {
		off  uint64
		want string
	}{
		{vz.off + 1, fmt.Sprintf("offset %#x is inside the instruction at %#x (vzeroupper, 3 bytes)", vz.off+1, vz.off)},
		{vz.off + 2, fmt.Sprintf("offset %#x is inside the instruction at %#x (vzeroupper, 3 bytes)", vz.off+2, vz.off)},
		{next.off + 1, fmt.Sprintf("offset %#x is inside the instruction at %#x (", next.off+1, next.off)},
		{vz.off, "the kernel cannot place a uprobe on"},
	} {
		probes, err := probe(c.off)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("__memchr_avx2:%x: %v, %v; want an error with %q", c.off, probes, err, c.want)
		}
	}
}

// cUncertain has a function whose bytes do not all decode: data among its
// instructions (06 is no instruction in 64-bit mode), and one that is
// plain code.
const cUncertain = `
#include <unistd.h>
__asm__(".text\n.globl weird\n.type weird,@function\nweird:\n\txor %eax,%eax\n\tret\n\t.byte 0x06,0x06\n\tret\n.size weird,.-weird\n");
__attribute__((noinline)) int fine(int x) { return x * 3; }
int weird(void);
int main(int argc, char **argv) { (void)argv; pause(); return fine(argc) + weird(); }
`

// TestUncertain checks that a function whose instructions are not known
// for certain gets no return probe and no offset probe: an error for
// pid$1::weird:return and pid$1::weird:0, a warning, once, for a glob.
func TestUncertain(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("not amd64")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "u.c"), filepath.Join(dir, "u")
	if err := os.WriteFile(src, []byte(cUncertain), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O2", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	pid := runtimetest.Spawn(t, bin, bin)
	var warn bytes.Buffer
	p := &Provider{Warn: &warn}
	desc := func(fn, name string) provider.Desc {
		return provider.Desc{Provider: "pid" + strconv.Itoa(pid), Module: "u", Function: fn, Name: name}
	}
	const doubt = "the function's instructions are not known for certain: cannot decode the instruction at offset 0x3 (06 06 c3): unrecognized instruction"
	for _, c := range []struct{ fn, name, want string }{
		{"weird", "return", "pid provider: u`weird: no return probe: cannot decode the instruction at offset 0x3 (06 06 c3): unrecognized instruction"},
		{"weird", "0", "pid provider: u`weird: offset 0x0: " + doubt},
		{"weird", "2", "pid provider: u`weird: offset 0x2: " + doubt},
	} {
		probes, err := p.Probes(desc(c.fn, c.name))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:%s: %v, %v; want the error %q", c.fn, c.name, probes, err, c.want)
		}
	}
	// Its entry is fine; a glob leaves it without a return probe and says
	// so once.
	for i := 0; i < 2; i++ {
		probes, err := p.Probes(desc("*i*", ""))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, pr := range probes {
			if pr.Function == "fine" || pr.Function == "weird" {
				got = append(got, pr.Function+":"+pr.Name)
			}
		}
		want := "weird:entry fine:entry fine:return"
		if strings.Join(got, " ") != want {
			t.Errorf("pid:u:*i*: probes %q, want %q", got, want)
		}
	}
	want := "sonde: warning: pid provider: no return probe in u`weird: cannot decode the instruction at offset 0x3 (06 06 c3): unrecognized instruction\n"
	if warn.String() != want {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
}
