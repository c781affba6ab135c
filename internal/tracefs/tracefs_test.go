package tracefs

// These tests read the real tracefs of the machine and must run as root. A
// kernel without the events they name fails them: sonde needs those events.

import (
	"errors"
	"fmt"
	"github.com/sonde-trace/sonde/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

const mountHelperEnv = "SONDE_TRACEFS_MOUNT_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(mountHelperEnv) != "" {
		os.Exit(mountHelper())
	}
	os.Exit(testenv.Root(m))
}

func mustOpen(t *testing.T) *FS {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("these tests read tracefs and must run as root")
	}
	fs, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestOpen(t *testing.T) {
	fs := mustOpen(t)
	if fs.Root() != DefaultPath && fs.Root() != DebugfsPath {
		t.Errorf("root %q", fs.Root())
	}
	if p, err := Path(); err != nil || p != fs.Root() {
		t.Errorf("Path() = %q, %v", p, err)
	}
}

func TestFormatSchedSwitch(t *testing.T) {
	fs := mustOpen(t)
	f, err := fs.Format("sched", "sched_switch")
	if err != nil {
		t.Fatal(err)
	}
	id, err := fs.EventID("sched", "sched_switch")
	if err != nil {
		t.Fatal(err)
	}
	if f.Subsystem != "sched" || f.Event != "sched_switch" || f.ID != id || id == 0 {
		t.Errorf("header %s:%s id %d, want sched:sched_switch id %d", f.Subsystem, f.Event, f.ID, id)
	}
	checkCommon(t, f)
	want := map[string]Field{
		"prev_comm": {Name: "prev_comm", Type: "char", Offset: 8, Size: 16, ArrayLen: 16},
		"prev_pid":  {Name: "prev_pid", Type: "pid_t", Offset: 24, Size: 4, Signed: true},
		"next_comm": {Name: "next_comm", Type: "char", Size: 16, ArrayLen: 16},
		"next_pid":  {Name: "next_pid", Type: "pid_t", Size: 4, Signed: true},
		"prev_prio": {Name: "prev_prio", Type: "int", Size: 4, Signed: true},
	}
	for name, w := range want {
		got, ok := f.Field(name)
		if !ok {
			t.Errorf("no field %s", name)
			continue
		}
		if w.Offset == 0 {
			w.Offset = got.Offset // offsets after prev_pid are layout details
		}
		if got != w {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
}

func checkCommon(t *testing.T, f *Format) {
	t.Helper()
	want := []Field{
		{Name: "common_type", Type: "unsigned short", Offset: 0, Size: 2},
		{Name: "common_flags", Type: "unsigned char", Offset: 2, Size: 1},
		{Name: "common_preempt_count", Type: "unsigned char", Offset: 3, Size: 1},
		{Name: "common_pid", Type: "int", Offset: 4, Size: 4, Signed: true},
	}
	if len(f.Common) != len(want) {
		t.Fatalf("%s: common fields %+v", f.Event, f.Common)
	}
	for i := range want {
		if f.Common[i] != want[i] {
			t.Errorf("%s: common field %d: got %+v, want %+v", f.Event, i, f.Common[i], want[i])
		}
	}
}

func TestFormatRawSyscalls(t *testing.T) {
	fs := mustOpen(t)
	f, err := fs.Format("raw_syscalls", "sys_enter")
	if err != nil {
		t.Fatal(err)
	}
	checkCommon(t, f)
	want := []Field{
		{Name: "id", Type: "long", Offset: 8, Size: 8, Signed: true},
		{Name: "args", Type: "unsigned long", Offset: 16, Size: 48, ArrayLen: 6},
	}
	if fmt.Sprint(f.Fields) != fmt.Sprint(want) {
		t.Errorf("raw_syscalls:sys_enter fields:\n got %+v\nwant %+v", f.Fields, want)
	}
	f, err = fs.Format("raw_syscalls", "sys_exit")
	if err != nil {
		t.Fatal(err)
	}
	if ret, ok := f.Field("ret"); !ok || ret.Type != "long" || ret.Size != 8 || !ret.Signed {
		t.Errorf("raw_syscalls:sys_exit ret: %+v", ret)
	}
}

func TestFormatSyscallOpenat(t *testing.T) {
	fs := mustOpen(t)
	f, err := fs.Format("syscalls", "sys_enter_openat")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range f.Fields {
		got = append(got, fd.Decl())
	}
	want := "int __syscall_nr,int dfd,const char * filename,int flags,umode_t mode"
	if strings.Join(got, ",") != want {
		t.Errorf("sys_enter_openat: got %q, want %q", strings.Join(got, ","), want)
	}
	if f.Fields[2].Offset != 24 || f.Fields[2].Size != 8 {
		t.Errorf("filename at %d size %d, want 24 and 8", f.Fields[2].Offset, f.Fields[2].Size)
	}
}

func TestFormatDataLoc(t *testing.T) {
	fs := mustOpen(t)
	f, err := fs.Format("sched", "sched_process_exec")
	if err != nil {
		t.Fatal(err)
	}
	fd, ok := f.Field("filename")
	if !ok || !fd.IsDataLoc || fd.Type != "char" || fd.Size != 4 {
		t.Errorf("sched_process_exec filename: %+v", fd)
	}
}

func TestFormatMissingEvent(t *testing.T) {
	fs := mustOpen(t)
	_, err := fs.Format("syscalls", "sys_enter_no_such_call")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want a not-exist error", err)
	}
	if fs.HasEvent("syscalls", "sys_enter_no_such_call") || !fs.HasEvent("syscalls", "sys_enter_openat") {
		t.Error("HasEvent wrong")
	}
}

// Every format file of this kernel parses, and its fields make sense.
func TestFormatAllEvents(t *testing.T) {
	fs := mustOpen(t)
	evs, err := fs.Events()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint32]Event{}
	for _, ev := range evs {
		f, err := fs.Format(ev.Subsystem, ev.Name)
		if errors.Is(err, os.ErrNotExist) {
			continue // listed but without a format file (ftrace internals)
		}
		if err != nil {
			t.Errorf("%s: %v", ev, err)
			continue
		}
		if f.Event != ev.Name {
			t.Errorf("%s: format names %q", ev, f.Event)
		}
		if prev, dup := ids[f.ID]; dup {
			t.Errorf("%s and %s share id %d", prev, ev, f.ID)
		}
		ids[f.ID] = ev
		checkCommon(t, f)
		for _, fd := range f.Fields {
			if fd.Name == "" || fd.Type == "" || fd.Offset < 8 || fd.Size < 0 {
				t.Errorf("%s: odd field %+v", ev, fd)
			}
		}
	}
	if len(ids) < 100 {
		t.Errorf("only %d event formats read", len(ids))
	}
}

func TestEvents(t *testing.T) {
	fs := mustOpen(t)
	evs, err := fs.Events()
	if err != nil {
		t.Fatal(err)
	}
	walked, err := fs.walkEvents()
	if err != nil {
		t.Fatal(err)
	}
	have := map[Event]bool{}
	for _, e := range evs {
		have[e] = true
	}
	for _, e := range []Event{{"sched", "sched_switch"}, {"raw_syscalls", "sys_enter"},
		{"raw_syscalls", "sys_exit"}, {"syscalls", "sys_enter_openat"}, {"syscalls", "sys_exit_openat"}} {
		if !have[e] {
			t.Errorf("%s not listed", e)
		}
	}
	// available_events and the events/ directory agree, except for
	// ftrace's own events, which have a directory but are not enabled.
	for _, e := range walked {
		if !have[e] && e.Subsystem != "ftrace" {
			t.Errorf("%s is in events/ but not in available_events", e)
		}
	}
	names, err := fs.EventsIn("syscalls")
	if err != nil || len(names) < 100 {
		t.Errorf("EventsIn(syscalls): %d names, %v", len(names), err)
	}
}

func TestFindErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "tracing")
	f := finder{candidates: []string{missing, filepath.Join(dir, "debug")}, mount: func(string) error {
		t.Fatal("mount called")
		return nil
	}}
	_, err := find(f)
	if !errors.Is(err, ErrNotMounted) || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("unprivileged: got %v", err)
	}
	f.isRoot = true
	_, err = find(f)
	if !errors.Is(err, ErrNotMounted) || !strings.Contains(err.Error(), "CONFIG_TRACING") {
		t.Errorf("no mount point: got %v", err)
	}
	if err := os.Mkdir(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	f.mount = func(string) error { return syscall.EPERM }
	_, err = find(f)
	if !errors.Is(err, ErrNotMounted) || !strings.Contains(err.Error(), "operation not permitted") {
		t.Errorf("mount fails: got %v", err)
	}
}

// TestMountWhenMissing runs mountHelper in a private mount namespace in which
// tracefs has been unmounted, and expects it to mount tracefs again.
func TestMountWhenMissing(t *testing.T) {
	mustOpen(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mountHelperEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "mounted "+DefaultPath) {
		t.Fatalf("helper: %v\n%s", err, out)
	}
}

// mountHelper runs in a new mount namespace (whose mounts are private).
func mountHelper() int {
	for _, dir := range []string{DefaultPath, DebugfsPath} {
		if isTracefs(dir) {
			if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
				fmt.Println("unmount:", err)
				return 1
			}
		}
		if isTracefs(dir) {
			fmt.Println("still mounted at", dir)
			return 1
		}
	}
	fs, err := Open()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if _, err := fs.Format("sched", "sched_switch"); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("mounted", fs.Root())
	return 0
}
