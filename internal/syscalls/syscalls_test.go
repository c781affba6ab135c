package syscalls

import (
	"errors"
	"fmt"
	"github.com/sonde-trace/sonde/internal/testenv"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/tracefs"
)

func TestMain(m *testing.M) {
	os.Exit(testenv.Root(m))
}

func mustTable(t *testing.T, arch string) *Table {
	t.Helper()
	tab, err := ForArch(arch)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestKnownNumbers(t *testing.T) {
	for _, tc := range []struct {
		arch string
		name string
		nr   int
	}{
		{"amd64", "read", 0}, {"amd64", "write", 1}, {"amd64", "openat", 257},
		{"amd64", "getppid", 110}, {"amd64", "stat", 4}, {"amd64", "newstat", 4},
		{"amd64", "umount2", 166}, {"amd64", "umount", 166}, {"amd64", "newfstatat", 262},
		{"amd64", "fchmodat2", 452}, {"amd64", "mseal", 462},
		{"arm64", "io_setup", 0}, {"arm64", "read", 63}, {"arm64", "write", 64},
		{"arm64", "openat", 56}, {"arm64", "getppid", 173}, {"arm64", "newfstatat", 79},
		{"arm64", "fstat", 80}, {"arm64", "fcntl", 25}, {"arm64", "mmap", 222},
		{"arm64", "lseek", 62}, {"arm64", "clone3", 435}, {"arm64", "renameat", 38},
		{"arm64", "mseal", 462},
	} {
		c, ok := mustTable(t, tc.arch).Lookup(tc.name)
		if !ok || c.Nr != tc.nr {
			t.Errorf("%s %s: got %d %v, want %d", tc.arch, tc.name, c.Nr, ok, tc.nr)
		}
	}
}

func TestNotInTable(t *testing.T) {
	// 64-bit tables have no 32-bit-only calls.
	for _, name := range []string{"_llseek", "fstat64", "mmap2", "fcntl64", "statfs64", "no_such_call"} {
		for _, arch := range []string{"amd64", "arm64"} {
			if c, ok := mustTable(t, arch).Lookup(name); ok {
				t.Errorf("%s: %s is in the table: %+v", arch, name, c)
			}
		}
	}
	// arm64 has only the *at calls.
	for _, name := range []string{"open", "stat", "fork", "rename"} {
		if _, ok := mustTable(t, "arm64").Lookup(name); ok {
			t.Errorf("arm64: %s is in the table", name)
		}
	}
}

func TestEvents(t *testing.T) {
	for _, tc := range []struct{ arch, name, event string }{
		{"amd64", "stat", "newstat"}, {"amd64", "uname", "newuname"},
		{"amd64", "sendfile", "sendfile64"}, {"amd64", "read", "read"},
		{"arm64", "fstat", "newfstat"}, {"arm64", "fadvise64", "fadvise64_64"},
		{"arm64", "umount2", "umount"}, {"arm64", "personality", "arm64_personality"},
	} {
		c, _ := mustTable(t, tc.arch).Lookup(tc.name)
		if c.Event != tc.event {
			t.Errorf("%s %s: event %q, want %q", tc.arch, tc.name, c.Event, tc.event)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		tab := mustTable(t, arch)
		names := tab.Names()
		if len(names) < 300 {
			t.Fatalf("%s: only %d calls", arch, len(names))
		}
		seen := map[string]bool{}
		prev := -1
		for _, name := range names {
			if seen[name] {
				t.Errorf("%s: %s twice", arch, name)
			}
			seen[name] = true
			c, ok := tab.Lookup(name)
			if !ok || c.Name != name {
				t.Errorf("%s: Lookup(%s) = %+v, %v", arch, name, c, ok)
				continue
			}
			if c.Nr <= prev {
				t.Errorf("%s: %s (%d) is not in number order", arch, name, c.Nr)
			}
			prev = c.Nr
			back, ok := tab.ByNumber(c.Nr)
			if !ok || back.Name != name {
				t.Errorf("%s: ByNumber(%d) = %+v, want %s", arch, c.Nr, back, name)
			}
			if ev, ok := tab.Lookup(c.Event); !ok || ev.Nr != c.Nr {
				t.Errorf("%s: event name %s does not find %s", arch, c.Event, name)
			}
		}
		if tab.MaxNr() != prev {
			t.Errorf("%s: MaxNr %d, last %d", arch, tab.MaxNr(), prev)
		}
	}
}

func TestNative(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Fatalf("no table for %s", runtime.GOARCH)
	}
	names := Names()
	if len(names) == 0 || fmt.Sprint(names) != fmt.Sprint(Native().Names()) {
		t.Fatal("Names() is not the native table's")
	}
	if runtime.GOARCH == "amd64" {
		if names[0] != "read" || names[1] != "write" {
			t.Errorf("amd64 starts with %v", names[:2])
		}
	}
	nr, ok := Number("getppid")
	if !ok {
		t.Fatal("no getppid")
	}
	if name, ok := Name(nr); !ok || name != "getppid" {
		t.Errorf("Name(%d) = %q", nr, name)
	}
	if _, err := ForArch("mips"); err == nil {
		t.Error("ForArch(mips) succeeded")
	}
}

func mustFS(t *testing.T) *tracefs.FS {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("these tests read tracefs and must run as root")
	}
	fs, err := tracefs.Open()
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func decl(args []Arg) string {
	var s []string
	for _, a := range args {
		s = append(s, strings.TrimSpace(a.Type+" "+a.Name))
	}
	return strings.Join(s, ", ")
}

func TestArgs(t *testing.T) {
	mustFS(t)
	for name, want := range map[string]string{
		"openat":  "int dfd, const char * filename, int flags, umode_t mode",
		"read":    "unsigned int fd, char * buf, size_t count",
		"write":   "unsigned int fd, const char * buf, size_t count",
		"getppid": "",
		"execve":  "const char * filename, const char *const * argv, const char *const * envp",
		"kill":    "pid_t pid, int sig",
		"mmap":    "unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags, unsigned long fd, unsigned long off",
	} {
		args, err := Args(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := decl(args); got != want {
			t.Errorf("%s: got (%s), want (%s)", name, got, want)
		}
	}
}

func TestProto(t *testing.T) {
	mustFS(t)
	p, err := LookupProto("openat")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Typed || p.Ret != (Arg{Name: "ret", Type: "long", Signed: true}) || p.Event != "openat" {
		t.Errorf("openat: %+v", p)
	}
	signed := []bool{true, false, true, false}
	for i, a := range p.Args {
		if a.Signed != signed[i] {
			t.Errorf("openat arg %s: signed %v", a.Name, a.Signed)
		}
	}
}

func TestProtoAliases(t *testing.T) {
	mustFS(t)
	tab := Native()
	aliases := map[string]string{}
	for _, c := range tab.All() {
		if c.Event != c.Name {
			aliases[c.Name] = c.Event
		}
	}
	if len(aliases) == 0 {
		t.Fatal("no aliases in the native table")
	}
	for name, event := range aliases {
		p, err := LookupProto(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !p.Typed || p.Event != event || p.Name != name {
			t.Errorf("%s: %+v, want typed, event %s", name, p.Syscall, event)
		}
		byEvent, err := LookupProto(event)
		if err != nil || byEvent.Name != name || decl(byEvent.Args) != decl(p.Args) {
			t.Errorf("by event %s: %+v, %v", event, byEvent, err)
		}
	}
}

func TestProtoUntyped(t *testing.T) {
	fs := mustFS(t)
	// The table has the call; this kernel has no event for it.
	var name string
	for _, c := range Native().All() {
		if !fs.HasEvent("syscalls", "sys_enter_"+c.Event) {
			name = c.Name
			break
		}
	}
	if name == "" {
		t.Fatal("every call in the table has an event; expected _sysctl or similar to lack one")
	}
	p, err := LookupProto(name)
	if err != nil {
		t.Fatal(err)
	}
	if p.Typed || len(p.Args) != MaxArgs || p.Args[5] != (Arg{Name: "arg5", Type: "uint64_t"}) || p.Ret.Type != "long" {
		t.Errorf("%s: %+v", name, p)
	}
	if _, err := LookupProto("no_such_call"); !errors.Is(err, ErrUnknown) {
		t.Errorf("no_such_call: got %v, want ErrUnknown", err)
	}
}

// Every syscall event of this kernel belongs to a call in the table: a
// kernel newer than the table shows up here first.
func TestEveryEventInTable(t *testing.T) {
	fs := mustFS(t)
	names, err := fs.EventsIn("syscalls")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range names {
		call, ok := strings.CutPrefix(ev, "sys_enter_")
		if !ok {
			continue
		}
		n++
		c, ok := Native().Lookup(call)
		if !ok {
			t.Errorf("event %s: no call in the %s table", ev, runtime.GOARCH)
			continue
		}
		if c.Event != call {
			t.Errorf("event %s found %s, whose event is %s", ev, c.Name, c.Event)
		}
		p, err := Native().Proto(fs, call)
		if err != nil || !p.Typed {
			t.Errorf("%s: %v", call, err)
		}
	}
	if n < 300 {
		t.Errorf("only %d sys_enter events", n)
	}
}

func TestIsSigned(t *testing.T) {
	for typ, want := range map[string]bool{
		"int": true, "const int": true, "long": true, "pid_t": true, "loff_t": true,
		"const clockid_t": true, "unsigned int": false, "size_t": false, "umode_t": false,
		"const char *": false, "int *": false, "u32": false, "uid_t": false,
	} {
		if got := isSigned(typ); got != want {
			t.Errorf("isSigned(%q) = %v", typ, got)
		}
	}
}
