// Package syscalls is the table of Linux system calls, name to number and
// back, for linux/amd64 and linux/arm64 (and i386, amd64's compat calls),
// and the arguments each call takes.
//
// The tables are generated (go generate; see gen/) from the kernel's
// user-space headers and committed, so nothing is read at run time. Names are
// the headers' (__NR_stat is "stat"). The syscall provider filters
// raw_syscalls:sys_enter/sys_exit by these numbers.
//
// Argument names and C types come from the kernel's per-call trace events
// (tracefs events/syscalls/sys_enter_<name>), read at run time. A call's
// event is named after its kernel entry point, which is not always its name:
//
//	amd64: stat, fstat, lstat, uname -> newstat, newfstat, newlstat, newuname;
//	       umount2 -> umount; sendfile -> sendfile64
//	arm64: fstat, newfstatat, uname -> newfstat, newfstatat, newuname;
//	       umount2 -> umount; sendfile -> sendfile64;
//	       fadvise64 -> fadvise64_64; personality -> arm64_personality
//
// Syscall.Event holds that name, and Lookup accepts either. 32-bit tables'
// underscored names (_llseek, _newselect) do not occur in these 64-bit
// tables; amd64's _sysctl does, and like the calls the kernel was built
// without (module loading, kexec, the never-implemented tuxcall, security,
// getpmsg...) it has no event: its arguments are six untyped uint64_t.
package syscalls

//go:generate go run ./gen -o zsyscalls.go

import (
	"fmt"
	"runtime"
	"sort"
)

// Syscall is one entry of a table.
type Syscall struct {
	Name  string // "stat", as the unistd header names it without __NR_
	Nr    int    // its number on the table's architecture
	Event string // its trace event's suffix (sys_enter_<Event>): "newstat"
}

// Table is the syscall table of one architecture.
type Table struct {
	arch   string
	calls  []Syscall // in number order
	byName map[string]int
	byNr   map[int]int
}

var tables = map[string]*Table{}

func init() {
	for arch, calls := range generated {
		tables[arch] = newTable(arch, calls)
	}
}

func newTable(arch string, calls []Syscall) *Table {
	t := &Table{arch: arch, calls: calls, byName: map[string]int{}, byNr: map[int]int{}}
	sort.SliceStable(t.calls, func(i, j int) bool { return t.calls[i].Nr < t.calls[j].Nr })
	for i := range t.calls {
		c := &t.calls[i]
		if c.Event == "" {
			c.Event = c.Name
		}
		t.byName[c.Name] = i
		t.byNr[c.Nr] = i
	}
	// Event names are accepted too, where no call has that name.
	for i, c := range t.calls {
		if _, ok := t.byName[c.Event]; !ok {
			t.byName[c.Event] = i
		}
	}
	return t
}

// ForArch returns the table of a GOARCH ("amd64", "arm64").
func ForArch(goarch string) (*Table, error) {
	if t, ok := tables[goarch]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("no syscall table for %s", goarch)
}

// Native returns the table of the architecture sonde was built for, or an
// empty table if there is none.
func Native() *Table {
	if t, ok := tables[runtime.GOARCH]; ok {
		return t
	}
	return newTable(runtime.GOARCH, nil)
}

// Compat returns the table of the 32-bit calls the native kernel also
// serves (i386's on amd64: int $0x80, sysenter and 32-bit processes), nil
// where there is none. The raw_syscalls tracepoints report such a call by
// its number in this table, so the same number names another call there:
// i386's getpid is 20, amd64's writev.
func Compat() *Table {
	if runtime.GOARCH == "amd64" {
		return tables["386"]
	}
	return nil
}

// Arch is the table's GOARCH.
func (t *Table) Arch() string { return t.arch }

// Lookup finds a call by its name or by its event's name ("newstat").
func (t *Table) Lookup(name string) (Syscall, bool) {
	i, ok := t.byName[name]
	if !ok {
		return Syscall{}, false
	}
	return t.calls[i], true
}

// ByNumber finds a call by number.
func (t *Table) ByNumber(nr int) (Syscall, bool) {
	i, ok := t.byNr[nr]
	if !ok {
		return Syscall{}, false
	}
	return t.calls[i], true
}

// All returns every call in number order. The slice is a copy.
func (t *Table) All() []Syscall { return append([]Syscall(nil), t.calls...) }

// Names returns every call's name in number order.
func (t *Table) Names() []string {
	names := make([]string, len(t.calls))
	for i, c := range t.calls {
		names[i] = c.Name
	}
	return names
}

// MaxNr is the highest number in the table, -1 if it is empty.
func (t *Table) MaxNr() int {
	if len(t.calls) == 0 {
		return -1
	}
	return t.calls[len(t.calls)-1].Nr
}

// Number returns the native number of a call named by its name or event.
func Number(name string) (int, bool) {
	c, ok := Native().Lookup(name)
	return c.Nr, ok
}

// Name returns the name of a native call number.
func Name(nr int) (string, bool) {
	c, ok := Native().ByNumber(nr)
	return c.Name, ok
}

// Names returns the names of the native calls in number order.
func Names() []string { return Native().Names() }

// Lookup finds a native call by its name or its event's name.
func Lookup(name string) (Syscall, bool) { return Native().Lookup(name) }
