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

// TestSkipSystemHeaders blanks the lines of system headers in cpp's
// output, keeps the script's (even where cpp flags them 3 because a
// system header's macro expands there) and gives errno back to D.
func TestSkipSystemHeaders(t *testing.T) {
	in := `# 1 "s.d"
# 1 "/usr/include/errno.h" 1 3 4
extern int *__errno_location (void) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__const__));
# 2 "s.d" 2
BEGIN { x =
# 2 "s.d" 3 4
 10
# 2 "s.d"
 ; y = (*__errno_location ()); }`
	want := `# 1 "s.d"
# 1 "/usr/include/errno.h" 1 3 4

# 2 "s.d" 2
BEGIN { x =
# 2 "s.d" 3 4
 10
# 2 "s.d"
 ; y = errno; }`
	if got := skipSystemHeaders(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
