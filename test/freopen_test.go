package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFreopen checks freopen() (destructive, -w): the output after it goes
// to the file named by its printf-style arguments, appended to what the
// file holds, freopen("") brings it back to standard output, and the
// aggregations printed at the end go where the output is then.
func TestFreopen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out-7.txt")
	if err := os.WriteFile(file, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := `BEGIN { printf("before\n"); freopen("` + dir + `/out-%d.txt", 7); printf("in file\n"); @ = count(); }
		BEGIN { freopen(""); printf("back\n"); freopen("` + file + `"); printf("again\n"); exit(0); }`
	out, err := exec.Command(sonde, "-w", "-q", "-n", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, out)
	}
	if string(out) != "before\nback\n" {
		t.Errorf("standard output %q, want %q", out, "before\nback\n")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "kept\nin file\nagain\n\n                1\n"; string(b) != want {
		t.Errorf("file holds %q, want %q", b, want)
	}
}
