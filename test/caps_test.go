package test

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// capsBinary copies bin/sonde to a directory any user may read and gives
// the copy the file capabilities caps (as setcap caps+ep does, written
// straight into the security.capability attribute: VFS_CAP_REVISION_2,
// effective, permitted).
func capsBinary(t *testing.T, caps ...uint) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sonde-caps")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sonde)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sonde")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	var permitted [2]uint32
	for _, c := range caps {
		permitted[c/32] |= 1 << (c % 32)
	}
	xattr := make([]byte, 20)
	binary.LittleEndian.PutUint32(xattr[0:], 0x02000000|1) // VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE
	binary.LittleEndian.PutUint32(xattr[4:], permitted[0])
	binary.LittleEndian.PutUint32(xattr[12:], permitted[1])
	if err := unix.Setxattr(bin, "security.capability", xattr, 0); err != nil {
		t.Skipf("cannot set file capabilities here: %v", err)
	}
	return bin
}

// runAsNobody runs bin as the user nobody, with its file capabilities,
// and returns its standard output followed by its standard error.
func runAsNobody(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return string(out) + stderr.String(), err
}

// TestCapabilityRoute runs sonde as a user who is not root, with only
// CAP_BPF and CAP_PERFMON (the setcap route the README documents):
// unqualified BEGIN, tick-1s and profile-97 must not fail because the
// tracepoint provider, which could also answer them, cannot read tracefs.
func TestCapabilityRoute(t *testing.T) {
	bin := capsBinary(t, unix.CAP_BPF, unix.CAP_PERFMON)
	cases := []struct{ name, prog, want string }{
		{"BEGIN", `BEGIN { printf("begin\n"); exit(0); }`, "begin\n"},
		{"tick", `tick-1s { printf("tick\n"); exit(0); }`, "tick\n"},
		{"profile", `profile-97 { n++; } tick-1s { printf("%d\n", n > 0); exit(0); }`, "1\n"},
		{"syscall", `syscall::exit_group:entry /pid == $target/ { n++; } END { printf("%d\n", n); }`, "1\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"-q", "-n", c.prog}
			if c.name == "syscall" {
				args = append(args, "-c", "/bin/true")
			}
			out, err := runAsNobody(t, bin, args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.HasPrefix(out, c.want) {
				t.Errorf("got %q, want %q first", out, c.want)
			}
		})
	}
}

// TestCapabilityNamed: where tracefs is root's alone, a tracepoint probe
// fails saying which capability reads it.
func TestCapabilityNamed(t *testing.T) {
	if st, err := os.Stat("/sys/kernel/tracing"); err != nil || st.Mode().Perm()&0o005 != 0 {
		t.Skip("tracefs is readable by others here")
	}
	bin := capsBinary(t, unix.CAP_BPF, unix.CAP_PERFMON)
	out, err := runAsNobody(t, bin, "-q", "-n", `tracepoint:sched::sched_switch { exit(0); }`)
	if err == nil || !strings.Contains(out, "needs CAP_DAC_READ_SEARCH (or root)") {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
	bin = capsBinary(t, unix.CAP_BPF, unix.CAP_PERFMON, unix.CAP_DAC_READ_SEARCH)
	out, err = runAsNobody(t, bin, "-q", "-n", `tracepoint:sched::sched_switch { printf("switch\n"); exit(0); }`)
	if err != nil || !strings.HasPrefix(out, "switch\n") {
		t.Fatalf("with CAP_DAC_READ_SEARCH: err %v, output:\n%s", err, out)
	}
}

// TestKernelSymbolsNeedSyslog: a program that names kernel addresses,
// run without CAP_SYSLOG where /proc/kallsyms then hides them, says so
// at start instead of printing bare hexadecimal frames without a word; with
// CAP_SYSLOG it says nothing of it. What nobody sees is asked of the kernel
// independently, by awk run as nobody.
func TestKernelSymbolsNeedSyslog(t *testing.T) {
	cmd := exec.Command("awk", `$2 == "T" || $2 == "t" { print $1; exit }`, "/proc/kallsyms")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	first, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	hidden := strings.Trim(strings.TrimSpace(string(first)), "0") == ""
	prog := `profile-97 { @[stack()] = count(); } tick-1s { exit(0); }`
	const warning = "kernel addresses will print as hexadecimal"
	bin := capsBinary(t, unix.CAP_BPF, unix.CAP_PERFMON)
	out, err := runAsNobody(t, bin, "-q", "-n", prog)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := strings.Contains(out, warning) && strings.Contains(out, "CAP_SYSLOG"); got != hidden {
		t.Errorf("nobody sees kallsyms addresses hidden: %v; warned: %v\n%s", hidden, got, out)
	}
	bin = capsBinary(t, unix.CAP_BPF, unix.CAP_PERFMON, unix.CAP_SYSLOG)
	out, err = runAsNobody(t, bin, "-q", "-n", prog)
	if err != nil || strings.Contains(out, warning) {
		t.Errorf("with CAP_SYSLOG: err %v, output:\n%s", err, out)
	}
}
