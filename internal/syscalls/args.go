package syscalls

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sonde-trace/sonde/internal/tracefs"
)

// MaxArgs is the number of arguments a system call can have.
const MaxArgs = 6

// ErrUnknown is wrapped by the error for a name that is neither in the
// table nor a syscall trace event.
var ErrUnknown = errors.New("unknown system call")

// Arg is one argument (or the return value) of a call.
type Arg struct {
	Name   string // "filename"; "arg0".."arg5" when untyped; "ret" for the return value
	Type   string // C type as the kernel declares it: "const char *", "size_t"; "uint64_t" when untyped
	Signed bool   // whether Type is a signed integer type
}

// Proto is what is known of a call's arguments.
type Proto struct {
	Syscall // Nr is -1 for a call the kernel has and the table lacks
	Args    []Arg
	Ret     Arg
	// Typed is false when tracefs has no event for the call: Args are
	// then MaxArgs untyped uint64_t and Ret is a long.
	Typed bool
}

// Args returns the arguments of a native call, named by its name or its
// event's name, from the running kernel's tracefs.
func Args(name string) ([]Arg, error) {
	p, err := LookupProto(name)
	if err != nil {
		return nil, err
	}
	return p.Args, nil
}

// LookupProto returns the arguments and return type of a native call.
func LookupProto(name string) (*Proto, error) {
	fs, err := tracefs.Open()
	if err != nil {
		return nil, fmt.Errorf("arguments of %s: %w", name, err)
	}
	return Native().Proto(fs, name)
}

// Proto reads a call's arguments from the syscalls events of fs:
// sys_enter_<event>'s fields after __syscall_nr, and sys_exit_<event>'s ret.
func (t *Table) Proto(fs *tracefs.FS, name string) (*Proto, error) {
	c, inTable := t.Lookup(name)
	if !inTable {
		c = Syscall{Name: name, Nr: -1, Event: name}
	}
	event := ""
	for _, ev := range []string{c.Event, strings.TrimPrefix(c.Event, "_")} {
		if fs.HasEvent("syscalls", "sys_enter_"+ev) {
			event = ev
			break
		}
	}
	if event == "" {
		if !inTable {
			return nil, fmt.Errorf("%w: %s", ErrUnknown, name)
		}
		if !fs.HasEvent("raw_syscalls", "sys_enter") {
			return nil, fmt.Errorf("arguments of %s: tracefs at %s has no syscall events "+
				"(kernel built without CONFIG_FTRACE_SYSCALLS?)", name, fs.Root())
		}
		return untyped(c), nil
	}
	c.Event = event
	p := &Proto{Syscall: c, Ret: Arg{Name: "ret", Type: "long", Signed: true}, Typed: true}
	args, err := eventArgs(fs, "sys_enter_"+event)
	if err != nil {
		return nil, err
	}
	p.Args = args
	ret, err := eventArgs(fs, "sys_exit_"+event)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// Keep the default: every call returns a long.
	case err != nil:
		return nil, err
	case len(ret) == 1:
		p.Ret = ret[0]
	default:
		return nil, fmt.Errorf("syscalls:sys_exit_%s: %d fields after __syscall_nr, want 1", event, len(ret))
	}
	return p, nil
}

// eventArgs returns the fields of a syscalls event after __syscall_nr.
func eventArgs(fs *tracefs.FS, event string) ([]Arg, error) {
	f, err := fs.Format("syscalls", event)
	if err != nil {
		return nil, err
	}
	if len(f.Fields) == 0 || f.Fields[0].Name != "__syscall_nr" {
		return nil, fmt.Errorf("syscalls:%s: first field is not __syscall_nr", event)
	}
	args := []Arg{}
	for _, fd := range f.Fields[1:] {
		args = append(args, Arg{Name: fd.Name, Type: fd.Type, Signed: isSigned(fd.Type)})
	}
	if len(args) > MaxArgs {
		return nil, fmt.Errorf("syscalls:%s: %d arguments", event, len(args))
	}
	return args, nil
}

func untyped(c Syscall) *Proto {
	p := &Proto{Syscall: c, Ret: Arg{Name: "ret", Type: "long", Signed: true}}
	for i := 0; i < MaxArgs; i++ {
		p.Args = append(p.Args, Arg{Name: fmt.Sprintf("arg%d", i), Type: "uint64_t"})
	}
	return p
}

// signedTypes are the signed integer types syscall events declare. The
// events themselves say signed:0 for every argument, so the type decides.
var signedTypes = map[string]bool{
	"char": true, "signed char": true, "short": true, "int": true, "long": true,
	"long long": true, "signed": true, "s8": true, "s16": true, "s32": true,
	"s64": true, "__s8": true, "__s16": true, "__s32": true, "__s64": true,
	"int8_t": true, "int16_t": true, "int32_t": true, "int64_t": true,
	"pid_t": true, "off_t": true, "loff_t": true, "ssize_t": true, "time_t": true,
	"clockid_t": true, "timer_t": true, "mqd_t": true, "key_t": true,
	"key_serial_t": true, "rwf_t": true, "__kernel_old_time_t": true,
}

// isSigned reports whether a C type is a signed integer type; pointers and
// types not listed are not.
func isSigned(t string) bool {
	t = strings.TrimSpace(t)
	for _, q := range []string{"const ", "volatile "} {
		t = strings.TrimPrefix(t, q)
	}
	if strings.Contains(t, "*") {
		return false
	}
	return signedTypes[strings.TrimSpace(t)]
}
