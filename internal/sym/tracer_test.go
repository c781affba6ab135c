package sym

import "testing"

// TestTracerFunc checks which kernel functions stack() counts as the
// tracing machinery, the glue between a traced function and a BPF program
// among them, and that the traced code is not.
func TestTracerFunc(t *testing.T) {
	for _, c := range []struct {
		mod, name string
		want      bool
	}{
		{"bpf", "bpf_prog_3ede6a5a05e7436e_p0", true},
		{"__builtin__ftrace", "ftrace_trampoline", true},
		{"vmlinux", "bpf_trace_run2", true},
		{"vmlinux", "__bpf_trace_sys_enter", true},
		{"vmlinux", "__traceiter_sys_enter", true},
		{"vmlinux", "trace_call_bpf", true},
		{"vmlinux", "perf_syscall_enter", true},
		{"vmlinux", "perf_call_bpf_enter", true},
		{"vmlinux", "perf_call_bpf_exit", true},
		{"vmlinux", "syscall_trace_enter", false},
		{"vmlinux", "do_syscall_64", false},
	} {
		if got := TracerFunc(c.mod, c.name); got != c.want {
			t.Errorf("TracerFunc(%q, %q) = %v, want %v", c.mod, c.name, got, c.want)
		}
	}
}
