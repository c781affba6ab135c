package format

import (
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

func ustack(frames ...string) value.Value { return value.Value{Kind: value.UStack, Frames: frames} }
func kstack(frames ...string) value.Value { return value.Value{Kind: value.Stack, Frames: frames} }

// folded runs Folded into a string.
func folded(t *testing.T, aggs ...*value.Aggregation) string {
	t.Helper()
	var sb strings.Builder
	if err := FoldedStacks(&sb, aggs, AggOpts{}); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// @[execname, ustack()] = count(): the key first, the stack from its
// root; offsets go and the stacks that then agree merge; lines sort.
func TestFoldedUstack(t *testing.T) {
	a := newAgg("", 1, value.Count, value.AggParams{})
	a.add(vals(str("sleep"), ustack("libc.so.6`clock_nanosleep+0x2f", "libc.so.6`nanosleep+0x13", "sleep`main+0x1a0", "libc.so.6`__libc_start_call_main+0x7a", "sleep`_start+0x21")), 1, 0)
	a.add(vals(str("sleep"), ustack("libc.so.6`clock_nanosleep+0x40", "libc.so.6`nanosleep+0x13", "sleep`main+0x1a0", "libc.so.6`__libc_start_call_main+0x7a", "sleep`_start+0x21")), 1, 0)
	a.add(vals(str("sleep"), ustack("libc.so.6`clock_nanosleep+0x40", "libc.so.6`nanosleep+0x13", "sleep`main+0x1a0", "libc.so.6`__libc_start_call_main+0x7a", "sleep`_start+0x21")), 1, 0)
	a.add(vals(str("bash"), ustack("libc.so.6`read", "bash`0x55d0c0a02000", "0x7ffd1234")), 1, 0)
	want := "bash;0x7ffd1234;bash`0x55d0c0a02000;libc.so.6`read 1\n" +
		"sleep;sleep`_start;libc.so.6`__libc_start_call_main;sleep`main;libc.so.6`nanosleep;libc.so.6`clock_nanosleep 3\n"
	if got := folded(t, a.a); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// @[stack(), ustack(), pid] = sum(...): the other keys first, then the
// user stack, then the kernel stack, whatever the key order.
func TestFoldedKernelAndUser(t *testing.T) {
	a := newAgg("bytes", 1, value.Sum, value.AggParams{})
	k := vals(
		kstack("vmlinux`ext4_file_write_iter+0x10", "vmlinux`vfs_write+0x1b0", "vmlinux`ksys_write+0x5f", "vmlinux`do_syscall_64+0x3b"),
		ustack("libc.so.6`write+0x14", "prog`main+0x2a"),
		i32(1234),
	)
	a.add(k, 100, 0).add(k, 28, 0)
	want := "1234;prog`main;libc.so.6`write;vmlinux`do_syscall_64;vmlinux`ksys_write;vmlinux`vfs_write;vmlinux`ext4_file_write_iter 128\n"
	if got := folded(t, a.a); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Frames with ';', newlines, spaces and nothing in them.
func TestFoldedEscapes(t *testing.T) {
	a := newAgg("", 1, value.Count, value.AggParams{})
	a.add(vals(str("a;b\nc"), ustack("libfoo.so`(anonymous namespace)::f(int, char)+0x12", "libfoo.so`ns::operator+(ns::A const&)", "  ")), 1, 0)
	a.add(vals(str("")), 1, 0)
	a.add(vals(str("x\x00junk"), ustack()), 2, 0)
	want := "- 1\n" +
		"a:b c;-;libfoo.so`ns::operator+(ns::A const&);libfoo.so`(anonymous namespace)::f(int, char) 1\n" +
		"x 1\n"
	if got := folded(t, a.a); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// No key at all.
	b := newAgg("", 1, value.Count, value.AggParams{})
	b.add(nil, 1, 0).add(nil, 1, 0)
	if got := folded(t, b.a); got != "- 2\n" {
		t.Errorf("no keys: %q", got)
	}
}

// Integer keys print as printa() prints them, without padding.
func TestFoldedIntKeys(t *testing.T) {
	a := newAgg("", 1, value.Count, value.AggParams{})
	a.add(vals(i8(-1), i32(-2), i64(-3), u64(1<<63), ustack("a`f")), 1, 0)
	if got, want := folded(t, a.a), "255;-2;-3;-9223372036854775808;a`f 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Several aggregations: each line starts with its aggregation's name.
// Values: normalized, averages of merged rows, min and max.
func TestFoldedSeveral(t *testing.T) {
	c := newAgg("", 1, value.Count, value.AggParams{})
	c.add(vals(ustack("a`f+0x1")), 1, 0).add(vals(ustack("a`f+0x2")), 1, 0)
	avg := newAgg("lat", 2, value.Avg, value.AggParams{})
	avg.add(vals(ustack("a`f+0x1")), 10, 0).add(vals(ustack("a`f+0x2")), 20, 0).add(vals(ustack("a`g")), -7, 0)
	mn := newAgg("min", 3, value.Min, value.AggParams{})
	mn.add(vals(ustack("a`f+0x1")), 10, 0).add(vals(ustack("a`f+0x2")), 5, 0)
	mx := newAgg("max", 4, value.Max, value.AggParams{})
	mx.add(vals(ustack("a`f+0x1")), 10, 0).add(vals(ustack("a`f+0x2")), 5, 0)
	sum := newAgg("ns", 5, value.Sum, value.AggParams{})
	sum.add(vals(ustack("a`f")), 3000, 0)
	sum.a.Normal = 1000
	sd := newAgg("sd", 6, value.Stddev, value.AggParams{})
	sd.add(vals(ustack("a`f+0x1")), 2, 0).add(vals(ustack("a`f+0x2")), 4, 0).add(vals(ustack("a`f+0x3")), 4, 0).add(vals(ustack("a`f+0x4")), 4, 0).
		add(vals(ustack("a`f+0x5")), 5, 0).add(vals(ustack("a`f+0x6")), 5, 0).add(vals(ustack("a`f+0x7")), 7, 0).add(vals(ustack("a`f+0x8")), 9, 0)
	want := "@;a`f 2\n" +
		"@lat;a`f 15\n" +
		"@lat;a`g -7\n" +
		"@max;a`f 10\n" +
		"@min;a`f 5\n" +
		"@ns;a`f 3\n" +
		"@sd;a`f 2\n"
	if got := folded(t, c.a, avg.a, mn.a, mx.a, sum.a, sd.a, c.a); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// The quantizing functions cannot be folded.
func TestFoldedQuantize(t *testing.T) {
	c := newAgg("c", 1, value.Count, value.AggParams{})
	c.add(vals(ustack("a`f")), 1, 0)
	q := newAgg("q", 2, value.Quantize, value.AggParams{})
	q.add(vals(ustack("a`f")), 10, 1)
	var sb strings.Builder
	err := FoldedStacks(&sb, []*value.Aggregation{c.a, q.a}, AggOpts{})
	if err == nil || !strings.Contains(err.Error(), "@q") || !strings.Contains(err.Error(), "quantize") {
		t.Errorf("error %v", err)
	}
	if sb.Len() != 0 {
		t.Errorf("printed %q", sb.String())
	}
}

func TestStripOffset(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"libc.so.6`write+0x14", "libc.so.6`write"},
		{"libc.so.6`write", "libc.so.6`write"},
		{"libc.so.6`0x7f0012", "libc.so.6`0x7f0012"},
		{"0x7f0012", "0x7f0012"},
		{"a`ns::operator+(ns::A const&)", "a`ns::operator+(ns::A const&)"},
		{"a`ns::operator+(ns::A const&)+0xA", "a`ns::operator+(ns::A const&)"},
		{"a`f+0x", "a`f+0x"},
		{"+0x10", "+0x10"},
	} {
		if got := stripOffset(c.in); got != c.want {
			t.Errorf("stripOffset(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
