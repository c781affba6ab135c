package test

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestMacroVariables checks the macro variables that describe sonde's own
// process against a process whose values the test chose: sonde started as
// the leader of a new session (its process group and session IDs are its
// pid) with group ID 4242, so none of them can be right by accident.
func TestMacroVariables(t *testing.T) {
	cmd := exec.Command(sonde, "-qn",
		`BEGIN { printf("%d %d %d %d %d %d\n", $pid, $pgid, $sid, $euid, $egid, $gid); exit(0); }`)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid:     true,
		Credential: &syscall.Credential{Uid: 0, Gid: 4242, NoSetGroups: true},
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, out)
	}
	pid := cmd.Process.Pid
	want := fmt.Sprintf("%d %d %d 0 4242 4242", pid, pid, pid)
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("$pid $pgid $sid $euid $egid $gid = %q, want %q", got, want)
	}
}
