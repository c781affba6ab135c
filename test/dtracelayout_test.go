package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDTraceLayout runs sonde through a symlink named dtrace, as
// distributions install it: a D error is printed in dtrace(1)'s layout
// (the first one only, with the tag under -x errtags), and its messages
// start "dtrace:", which scripts that wrap dtrace match on; run as sonde,
// the caret display is kept.
func TestDTraceLayout(t *testing.T) {
	dir := t.TempDir()
	dtrace := filepath.Join(dir, "dtrace")
	if err := os.Symlink(sonde, dtrace); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "x.d")
	if err := os.WriteFile(script, []byte("BEGIN\n{\n\tpid = 1;\n\ttimestamp++;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prog string
		args []string
		want string
	}{
		{dtrace, []string{"-x", "errtags", "-s", script},
			"dtrace: failed to compile script " + script + ": [D_OP_WRITE] line 3: operator = can only be applied to a writable variable: pid is a read-only built-in variable\n"},
		{dtrace, []string{"-n", "BEGIN { x = ; }"},
			"dtrace: invalid probe specifier BEGIN { x = ; }: line 1: syntax error near \";\"\n"},
		{sonde, []string{"-s", script},
			script + ":3:2: operator = can only be applied to a writable variable: pid is a read-only built-in variable\n     pid = 1;\n     ^\n"},
	}
	for _, tt := range tests {
		cmd := exec.Command(tt.prog, tt.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil {
			t.Errorf("%s %q: no error", filepath.Base(tt.prog), tt.args)
		}
		got := stderr.String()
		if tt.prog == sonde {
			got = got[:strings.Index(got, "^\n")+2] // the first error
		}
		if got != tt.want {
			t.Errorf("%s %q: stderr\n%q\nwant\n%q", filepath.Base(tt.prog), tt.args, got, tt.want)
		}
	}
	out, err := exec.Command(dtrace, "-n", "BEGIN { exit(0); }").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "dtrace: description 'BEGIN ' matched 1 probe\n") {
		t.Errorf("dtrace -n: %v\n%s", err, out)
	}
}
