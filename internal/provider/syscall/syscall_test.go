package syscall_test

import (
	"math/rand"
	"os"
	goruntime "runtime"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/providertest"
	"github.com/sonde-trace/sonde/internal/provider/syscall"
	"github.com/sonde-trace/sonde/internal/runtime/runtimetest"
	"github.com/sonde-trace/sonde/internal/syscalls"
	"github.com/sonde-trace/sonde/internal/tracefs"
)

func nr(t *testing.T, name string) int {
	t.Helper()
	n, ok := syscalls.Number(name)
	if !ok {
		t.Fatalf("no system call %s in the table", name)
	}
	return n
}

// needTracefs fails the test, with the reason, when tracefs cannot be read:
// argument types come from it.
func needTracefs(t *testing.T) {
	t.Helper()
	if _, err := tracefs.Open(); err != nil {
		t.Fatalf("tracefs is not readable (the syscall provider types arguments from it; run as root with tracefs mounted): %v", err)
	}
}

func TestMatchGlob(t *testing.T) {
	ps := providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Function: "read*", Name: "entry"})
	got := map[string]bool{}
	for _, p := range ps {
		got[p.Function] = true
		if !strings.HasPrefix(p.Function, "read") || p.Name != "entry" || p.Provider != "syscall" || p.Module != "" {
			t.Errorf("syscall::read*:entry matched %s", p.FullName())
		}
		if p.Hook != (provider.Hook{Kind: provider.HookRawTP, Name: "sys_enter"}) {
			t.Errorf("%s: hook %s, want raw_tp:sys_enter", p.FullName(), p.Hook)
		}
		if compatOnly(p.Function) {
			if p.Sel <= int64(syscalls.Native().MaxNr()) {
				t.Errorf("%s, a compat-only call: Sel %d, want one past the native numbers", p.FullName(), p.Sel)
			}
			continue
		}
		if p.Sel != int64(nr(t, p.Function)) {
			t.Errorf("%s: Sel %d, want its number %d", p.FullName(), p.Sel, nr(t, p.Function))
		}
	}
	for _, want := range []string{"read", "readv", "readlink", "readlinkat", "readahead"} {
		if !got[want] {
			t.Errorf("syscall::read*:entry does not match %s (matched %v)", want, got)
		}
	}
	if got["pread64"] || got["write"] {
		t.Errorf("syscall::read*:entry matched calls not beginning with read: %v", got)
	}
}

// compatOnly reports whether name is a 32-bit call that no native call is
// named after (i386's mmap2).
func compatOnly(name string) bool {
	n, ok := syscalls.Native().Lookup(name)
	return !ok || n.Name != name
}

// numCompatOnly is how many 32-bit calls have probes of their own.
func numCompatOnly() int {
	k := 0
	if ct := syscalls.Compat(); ct != nil {
		for _, c := range ct.All() {
			if compatOnly(c.Name) {
				k++
			}
		}
	}
	return k
}

func TestMatchFields(t *testing.T) {
	n := len(syscalls.Native().All()) + numCompatOnly()
	for _, c := range []struct {
		d    provider.Desc
		want int
	}{
		{provider.Desc{Provider: "syscall", Function: "read"}, 2},
		{provider.Desc{Provider: "syscall", Module: "vmlinux", Function: "read", Name: "return"}, 1},
		{provider.Desc{Provider: "sys*", Function: "read", Name: "entry"}, 1},
		{provider.Desc{Provider: "syscall", Module: "libc", Function: "read"}, 0},
		{provider.Desc{Provider: "sched", Function: "read"}, 0},
		{provider.Desc{Provider: "syscall", Function: "read", Name: "exit"}, 0},
		{provider.Desc{Provider: "syscall", Function: "no_such_call"}, 0},
		{provider.Desc{Provider: "syscall", Function: "mmap2"}, 2 * min(numCompatOnly(), 1)},
		{provider.Desc{Provider: "syscall"}, 2 * n},
		{provider.Desc{Provider: "syscall", Name: "return"}, n},
		{provider.Desc{}, 2 * n},
	} {
		if got := len(providertest.Probes(t, syscall.Provider{}, c.d)); got != c.want {
			t.Errorf("%s: %d probes, want %d", c.d, got, c.want)
		}
	}
	ps := providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Function: "read"})
	if ps[0].Name != "entry" || ps[1].Name != "return" || ps[1].Hook.Name != "sys_exit" || ps[1].Sel != ps[0].Sel {
		t.Errorf("syscall::read: gave %s (%s), %s (%s)", ps[0].FullName(), ps[0].Hook, ps[1].FullName(), ps[1].Hook)
	}
}

// Local IDs are 2*nr for entry and 2*nr+1 for return: all distinct and
// below NumLocal, the range the registry reserves.
func TestLocalIDs(t *testing.T) {
	seen := map[uint32]string{}
	for _, p := range providertest.Probes(t, syscall.Provider{}, provider.Desc{}) {
		if p.ID >= syscall.NumLocal() {
			t.Errorf("%s: local ID %d outside [0, %d)", p.FullName(), p.ID, syscall.NumLocal())
		}
		if q, ok := seen[p.ID]; ok {
			t.Errorf("%s and %s share local ID %d", q, p.FullName(), p.ID)
		}
		seen[p.ID] = p.FullName()
		want := uint32(2 * p.Sel)
		if p.Name == "return" {
			want++
		}
		if p.ID != want {
			t.Errorf("%s: local ID %d, want %d", p.FullName(), p.ID, want)
		}
	}
}

func argTypes(p *provider.Probe) []string {
	var out []string
	for _, a := range p.Args {
		out = append(out, a.Type+" "+a.Name)
	}
	return out
}

// A description matching few probes gets its argument types from tracefs;
// one matching many gets them from TypeArgs.
func TestArgTypes(t *testing.T) {
	needTracefs(t)
	for _, c := range []struct {
		fn, name string
		want     []string
	}{
		{"read", "entry", []string{"unsigned int fd", "char * buf", "size_t count"}},
		{"read", "return", []string{"long ret", "long ret"}},
		{"openat", "entry", []string{"int dfd", "const char * filename", "int flags", "umode_t mode"}},
		{"close", "entry", []string{"unsigned int fd"}},
		{"getppid", "entry", nil},
	} {
		ps := providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Function: c.fn, Name: c.name})
		if len(ps) != 1 {
			t.Fatalf("syscall::%s:%s: %d probes", c.fn, c.name, len(ps))
		}
		if got := argTypes(ps[0]); strings.Join(got, ", ") != strings.Join(c.want, ", ") {
			t.Errorf("syscall::%s:%s: args %q, want %q", c.fn, c.name, got, c.want)
		}
	}
	all := providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Name: "entry"})
	var read *provider.Probe
	for _, p := range all {
		if p.Args != nil {
			t.Fatalf("syscall:::entry typed %s: reading every format file was meant to wait for TypeArgs", p.FullName())
		}
		if p.Function == "read" {
			read = p
		}
	}
	syscall.Provider{}.TypeArgs([]*provider.Probe{read})
	if got := strings.Join(argTypes(read), ", "); got != "unsigned int fd, char * buf, size_t count" {
		t.Errorf("TypeArgs(read:entry): %s", got)
	}
}

func named(t *testing.T, names ...string) []*provider.Probe {
	t.Helper()
	var out []*provider.Probe
	for _, n := range names {
		fn, name, _ := strings.Cut(n, ":")
		out = append(out, providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Function: fn, Name: name})...)
	}
	return out
}

func byNumbers(t *testing.T, nrs []int) []*provider.Probe {
	t.Helper()
	var out []*provider.Probe
	for _, n := range nrs {
		name, ok := syscalls.Name(n)
		if !ok {
			continue
		}
		out = append(out, providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Function: name, Name: "entry"})...)
	}
	return out
}

// The prologue of sys_enter and the guard of a clause, run with
// BPF_PROG_TEST_RUN for every system call number (and some that are not):
// the clause's body must run exactly for the numbers of its probes, with
// the probe ID of that call's entry.
func TestGuardSelectsNumbers(t *testing.T) {
	all := providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Name: "entry"})
	rng := rand.New(rand.NewSource(1))
	sample := func(from []*provider.Probe, k int) []*provider.Probe {
		out := append([]*provider.Probe(nil), from...)
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		out = out[:k]
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out
	}
	runs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 39, 60, 61, 62, 100, 200, 201, 202, 203, 231, 257, 300, 301, 302}
	cases := []struct {
		name         string
		probes, want []*provider.Probe
	}{
		{"four calls, two wanted", named(t, "read:entry", "write:entry", "openat:entry", "close:entry"), named(t, "write:entry", "close:entry")},
		{"two calls, both wanted", named(t, "read:entry", "write:entry"), nil},
		{"one call", named(t, "getppid:entry"), nil},
		{"runs and singles", byNumbers(t, runs), byNumbers(t, []int{0, 1, 2, 5, 6, 7, 9, 20, 39, 61, 62, 100, 202, 203, 231, 301})},
		{"every call, one wanted", all, named(t, "getppid:entry")},
		{"every call, *stat* wanted", all, named(t, "*stat*:entry")},
		{"every call, all wanted", all, nil},
		{"random 40 of all, 13 wanted", nil, nil},
		{"random 200 of all, 150 wanted", nil, nil},
	}
	cases[7].probes = sample(all, 40)
	cases[7].want = sample(cases[7].probes, 13)
	cases[8].probes = sample(all, 200)
	cases[8].want = sample(cases[8].probes, 150)
	max := syscalls.Native().MaxNr()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == nil {
				want = c.probes
			}
			l := runtimetest.Load(t, runtimetest.Spec{Provider: syscall.Provider{},
				Hook:   provider.Hook{Kind: provider.HookRawTP, Name: "sys_enter"},
				Probes: c.probes, Want: c.want, PID: os.Getpid(), Run: true})
			// Run natively, only native numbers select (a compat-only
			// call's selector is past them; e2e's tst.compat32 runs those).
			in := map[int64]bool{}
			for _, p := range want {
				in[p.Sel] = p.Sel <= int64(max)
			}
			for n := int64(-1); n <= int64(max)+8; n++ {
				l.Run(t, 0, uint64(n))
				fs := l.Firings(t)
				switch {
				case !in[n] && len(fs) != 0:
					t.Errorf("number %d: the clause ran (probe ID %d), but it enables only %d calls", n, fs[0].ID, len(in))
				case in[n] && len(fs) != 1:
					t.Errorf("number %d: the clause ran %d times, want once", n, len(fs))
				case in[n] && (fs[0].ID != uint64(2*n) || fs[0].Sel != uint64(n)):
					t.Errorf("number %d: probe ID %d sel %d, want %d and %d", n, fs[0].ID, fs[0].Sel, 2*n, n)
				}
			}
		})
	}
}

// The guard is also a compare tree that must hold up for each size: every
// prefix of the table, against every number.
func TestGuardEverySize(t *testing.T) {
	all := providertest.Probes(t, syscall.Provider{}, provider.Desc{Provider: "syscall", Name: "entry"})
	for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 33} {
		var want []*provider.Probe
		for i := 0; i < k; i++ {
			want = append(want, all[(i*37)%len(all)])
		}
		sort.Slice(want, func(i, j int) bool { return want[i].ID < want[j].ID })
		l := runtimetest.Load(t, runtimetest.Spec{Provider: syscall.Provider{},
			Hook: provider.Hook{Kind: provider.HookRawTP, Name: "sys_enter"}, Probes: all, Want: want, PID: os.Getpid(), Run: true})
		in := map[int64]bool{}
		for _, p := range want {
			in[p.Sel] = p.Sel <= int64(syscalls.Native().MaxNr())
		}
		for n := int64(0); n <= int64(syscalls.Native().MaxNr())+1; n++ {
			l.Run(t, 0, uint64(n))
			if got := len(l.Firings(t)) == 1; got != in[n] {
				t.Errorf("%d wanted: number %d selected %v, want %v", k, n, got, in[n])
			}
		}
	}
}

// Attached to the real raw tracepoints: a read's arguments at entry, and
// the return value and errno of calls that succeed and fail at return.
func TestAttachedArgsAndErrno(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	tid := uint32(unix.Gettid())
	all := provider.Needs{Errno: true}
	for i := range all.Args {
		all.Args[i] = true
	}
	enter := named(t, "read:entry", "close:entry")
	le := runtimetest.Load(t, runtimetest.Spec{Provider: syscall.Provider{}, Hook: enter[0].Hook,
		Probes: enter, Want: enter[:1], Needs: all, PID: os.Getpid()})
	exit := named(t, "read:return", "close:return")
	lx := runtimetest.Load(t, runtimetest.Spec{Provider: syscall.Provider{}, Hook: exit[0].Hook,
		Probes: exit, Needs: all, PID: os.Getpid()})

	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[1])
	if _, err := unix.Write(p[1], []byte("abc")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if n, err := unix.Read(p[0], buf); n != 3 || err != nil {
		t.Fatalf("read: %d, %v", n, err)
	}
	if err := unix.Close(p[0]); err != nil {
		t.Fatal(err)
	}
	if err := unix.Close(-1); err != unix.EBADF {
		t.Fatalf("close(-1): %v, want EBADF", err)
	}

	var reads int
	for _, f := range le.Firings(t) {
		if f.ID != uint64(enter[0].ID) {
			t.Errorf("sys_enter: probe ID %d fired past a guard for read:entry (%d)", f.ID, enter[0].ID)
		}
		if f.Tid != tid || f.Args[0] != uint64(p[0]) {
			continue
		}
		reads++
		if f.Args[1] != uint64(uintptr(unsafe.Pointer(&buf[0]))) || f.Args[2] != 7 || f.Errno != 0 {
			t.Errorf("read:entry args %#x, errno %d; want fd %d, buf %p, count 7", f.Args[:3], f.Errno, p[0], &buf[0])
		}
	}
	if reads != 1 {
		t.Errorf("read:entry fired %d times for read(%d, buf, 7), want once", reads, p[0])
	}

	var ok, bad int
	for _, f := range lx.Firings(t) {
		if f.Tid != tid {
			continue
		}
		switch {
		case f.ID == uint64(exit[0].ID) && f.Args[0] == 3:
			ok++
			if f.Args[1] != 3 || f.Errno != 0 {
				t.Errorf("read:return arg1 %d errno %d, want 3 and 0", f.Args[1], f.Errno)
			}
		case f.ID == uint64(exit[1].ID) && f.Errno != 0:
			bad++
			if int64(f.Args[0]) != -int64(unix.EBADF) || int64(f.Args[1]) != -int64(unix.EBADF) || f.Errno != int64(unix.EBADF) {
				t.Errorf("close(-1):return arg0 %d arg1 %d errno %d, want -9, -9 and EBADF (9)", int64(f.Args[0]), int64(f.Args[1]), f.Errno)
			}
		case f.ID != uint64(exit[0].ID) && f.ID != uint64(exit[1].ID):
			t.Errorf("sys_exit: probe ID %d fired; only %d and %d are enabled", f.ID, exit[0].ID, exit[1].ID)
		}
	}
	if ok != 1 || bad != 1 {
		t.Errorf("read:return returning 3 fired %d times, close:return with EBADF %d times; want once each", ok, bad)
	}
}
