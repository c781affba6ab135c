package tracer

import "testing"

func TestPartialDesc(t *testing.T) {
	for _, tt := range []struct {
		text  string
		field int
		want  string
	}{
		{"syscall", 0, "syscall:::"},
		{"dtrace /arg0/ { x++; }", 0, "dtrace::: /arg0/ { x++; }"},
		{"vmlinux", 1, ":vmlinux::"},
		{"tracepoint:sched", 1, "tracepoint:sched::"},
		{"read", 2, "::read:"},
		{"syscall::read", 2, "syscall::read:"},
		{"libc.so.6:malloc{ x++; }", 2, ":libc.so.6:malloc:{ x++; }"},
		{"a:b:c:d", 2, "a:b:c:d"}, // too many fields: the parser says so
	} {
		if got := partialDesc(tt.text, tt.field); got != tt.want {
			t.Errorf("partialDesc(%q, %d) = %q, want %q", tt.text, tt.field, got, tt.want)
		}
	}
}
