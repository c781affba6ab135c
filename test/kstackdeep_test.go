package test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

// deepBPFSubprogs is how many BPF subprograms deep the program of
// TestStackdepthDeepTracer spins: with its main program, bpf_trace_run2,
// __bpf_trace_sys_enter (and __traceiter_sys_enter when other programs
// share the tracepoint), a profile firing there starts the kernel's stack
// with 10 or more frames of tracer code, more than the 6 stackdepth once
// skipped at most.
const deepBPFSubprogs = 7

// TestStackdepthDeepTracer checks stackdepth and caller against stack()
// when a profile probe interrupts a BPF program deep in BPF-to-BPF calls:
// every leading frame up to the traced code is tracer code, and stack()
// leaves them all out, so stackdepth and caller must too (once they
// skipped at most 6 and counted the rest).
func TestStackdepthDeepTracer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sonde-kdeep")
	if out, err := exec.Command("gcc", "-O1", "-o", bin, "cases/syscall/sysc.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	w := exec.Command(bin, "2000000000")
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Process.Kill(); _ = w.Wait() }()

	// a raw tracepoint program on sys_enter which, for the workload only,
	// calls subprograms deepBPFSubprogs deep, the deepest spinning a while
	insns := asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.JNE.Imm(asm.R0, int32(w.Process.Pid), "out"),
		asm.Call.Label("sub1"),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
	for i := 1; i < deepBPFSubprogs; i++ {
		insns = append(insns,
			asm.Call.Label(fmt.Sprintf("sub%d", i+1)).WithSymbol(fmt.Sprintf("sub%d", i)),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		)
	}
	insns = append(insns,
		asm.Mov.Imm(asm.R1, 0).WithSymbol(fmt.Sprintf("sub%d", deepBPFSubprogs)),
		asm.Add.Imm(asm.R1, 1).WithSymbol("spin"),
		asm.JLT.Imm(asm.R1, 5000, "spin"),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	)
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "kdeep", Type: ebpf.RawTracepoint, License: "GPL", Instructions: insns})
	if err != nil {
		t.Fatalf("loading the deep program: %v", err)
	}
	defer prog.Close()
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "sys_enter", Program: prog})
	if err != nil {
		t.Fatalf("attaching the deep program: %v", err)
	}
	defer l.Close()

	out, err := exec.Command(sonde, "-q", "-x", "stackframes=127", "-p", strconv.Itoa(w.Process.Pid), "-n", `
	profile-4999 /pid == $target/ { printf("@ %d %a\n", stackdepth, caller); stack(); }
	tick-2s { exit(0); }`).CombinedOutput()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, out)
	}
	fs := stackFirings(t, out, 0)
	deep, bad := 0, 0
	for _, f := range fs {
		want := "0x0"
		if len(f.frames) > 1 {
			want = f.frames[1]
		}
		if len(f.frames) > 0 && strings.HasPrefix(f.frames[0], "vmlinux`syscall_trace_enter") {
			deep++ // the firing interrupted the deep program
		}
		if f.depth != len(f.frames) || f.caller != want {
			if bad++; bad <= 5 {
				t.Errorf("stackdepth %d and caller %s, stack() printed %d frames:\n%s", f.depth, f.caller, len(f.frames), strings.Join(f.frames, "\n"))
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d firings of %d disagreed", bad, len(fs))
	}
	if deep == 0 {
		t.Fatalf("no firing interrupted the deep BPF program in %d firings:\n%s", len(fs), out)
	}
	t.Logf("%d firings, %d in the deep BPF program", len(fs), deep)
}
