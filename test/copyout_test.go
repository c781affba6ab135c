package test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopyout checks copyout() and copyoutstr() (destructive, -w) on a
// process that prints what its buffers hold after a traced call:
// copyoutstr() writes a string and its NUL, or at most maxlen bytes;
// copyout() writes bytes the clause copied in and changed. A kernel that
// forbids BPF programs to write user memory (lockdown: no
// bpf_probe_write_user) must make sonde say so, at the clause, and leave
// the process alone.
func TestCopyout(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sonde-poke")
	if out, err := exec.Command("gcc", "-O2", "-o", bin, "cases/destructive/poke.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	prog := `pid$target::poke:entry /++calls == 1/ {
		copyoutstr("tampered", arg0, 32);
		this->v = (long *)copyin(arg1, 8);
		*this->v;
		this->w = (long *)alloca(8);
		bcopy(this->v, this->w, 8);
		copyout(this->w, arg1 + 0, 1);
	}
	pid$target::poke:entry /calls == 2/ {
		copyoutstr("XYZ", arg0, 2);
	}`
	cmd := exec.Command(sonde, "-w", "-q", "-n", prog, "-c", bin)
	out, err := cmd.CombinedOutput()
	s := string(out)
	if strings.Contains(s, "bpf_probe_write_user") {
		// the kernel has no helper to write user memory
		if err == nil || !strings.Contains(s, "rejected the code of this clause") {
			t.Fatalf("without bpf_probe_write_user, want a clear error at the clause, got %v:\n%s", err, s)
		}
		t.Logf("this kernel forbids BPF programs to write user memory: %s", strings.TrimSpace(s))
		return
	}
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, s)
	}
	if !strings.Contains(s, "tampered 7\n") || !strings.Contains(s, "XYcond-original 7\n") {
		t.Errorf("the process did not see what copyoutstr() wrote:\n%s", s)
	}
}
