package test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStackdepthCaller checks stackdepth and caller against stack() in the
// same firing, for every kind of hook: stackdepth is the number of frames
// stack() prints, caller (printed with %a, as stack() names frames) its
// second frame, 0 when it has fewer. Raw and BTF tracepoints (syscall,
// sched:::off-cpu, proc) start the kernel's stack in the tracing machinery,
// a number of frames that changes with the probes attached to the
// tracepoint; perf-event tracepoints, sched:::on-cpu (the incoming
// thread's saved stack), BEGIN and profile do not; a pid probe fires in
// user context, where the kernel stack is empty.
func TestStackdepthCaller(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sonde-kstk")
	if out, err := exec.Command("gcc", "-O1", "-o", bin, "cases/syscall/sysc.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	prog := `
	syscall::getppid:entry, syscall::getppid:return, syscall::close:entry,
	tracepoint:syscalls::sys_enter_getppid, tracepoint:raw_syscalls::sys_exit,
	sched:::off-cpu, proc:::exec-success, pid$target:libc.so.6:syscall:entry
	/pid == $target/ { printf("@ %s:%s:%s %d %a\n", probeprov, probefunc, probename, stackdepth, caller); stack(); }
	sched:::on-cpu /pid == $target/ { printf("@ %s:%s:%s %d %a\n", probeprov, probefunc, probename, stackdepth, caller); stack(); }
	BEGIN, profile-997 { printf("@ %s:%s:%s %d %a\n", probeprov, probefunc, probename, stackdepth, caller); stack(); }`
	out, err := exec.Command(sonde, "-q", "-x", "stackframes=127", "-n", prog, "-c", bin+" 3 3 3").CombinedOutput()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, out)
	}
	fs := stackFirings(t, out, 1)
	seen := map[string]int{}
	for _, f := range fs {
		seen[f.label]++
		if f.depth != len(f.frames) {
			t.Errorf("%s: stackdepth %d, stack() printed %d frames:\n%s", f.label, f.depth, len(f.frames), strings.Join(f.frames, "\n"))
		}
		want := "0x0"
		if len(f.frames) > 1 {
			want = f.frames[1]
		}
		if f.caller != want {
			t.Errorf("%s: caller %s, want %s (stack %v)", f.label, f.caller, want, f.frames)
		}
		for _, fr := range f.frames[:min(len(f.frames), 1)] {
			for _, tracer := range []string{"bpf`", "bpf_trace_run", "__bpf_trace_", "__traceiter_", "perf_syscall_"} {
				if strings.Contains(fr, tracer) {
					t.Errorf("%s: stack starts in the tracer: %v", f.label, f.frames)
				}
			}
		}
		if strings.HasPrefix(f.label, "pid") {
			seen["pid"]++
		}
		if strings.HasPrefix(f.label, "pid") && f.depth != 0 {
			t.Errorf("%s: stackdepth %d in user context, want 0", f.label, f.depth)
		}
	}
	for _, p := range []string{"syscall:getppid:entry", "syscall:getppid:return", "syscall:close:entry", "tracepoint::sys_enter_getppid",
		"dtrace::BEGIN", "sched:sched_switch:on-cpu", "sched:sched_switch:off-cpu"} {
		if seen[p] == 0 {
			t.Errorf("no firing of %s in\n%s", p, out)
		}
	}
	if seen["pid"] == 0 {
		t.Errorf("no firing of the pid probe in\n%s", out)
	}
	t.Logf("%d firings: %v", len(fs), seen)
}

// stackFiring is one firing a stackdepth test printed: its label, its
// stackdepth and caller, and the frames stack() printed after them.
type stackFiring struct {
	label, caller string
	depth         int
	frames        []string
}

// stackFirings reads lines "@ [LABEL] DEPTH CALLER" (labelled when
// labels is 1), each followed by its stack()'s frames, one a line; any
// other line but sonde's "sonde: pid N has exited" fails the test.
func stackFirings(t *testing.T, out []byte, labels int) []*stackFiring {
	t.Helper()
	var fs []*stackFiring
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3+labels && f[0] == "@":
			d, err := strconv.Atoi(f[1+labels])
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			fs = append(fs, &stackFiring{label: strings.Join(f[1:1+labels], " "), depth: d, caller: f[2+labels]})
		case len(f) == 1 && len(fs) > 0:
			fs[len(fs)-1].frames = append(fs[len(fs)-1].frames, f[0])
		case len(f) != 0 && !strings.HasPrefix(line, "sonde: pid"):
			t.Fatalf("unexpected line %q in\n%s", line, out)
		}
	}
	return fs
}
