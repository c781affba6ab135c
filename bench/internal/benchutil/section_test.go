package benchutil

import (
	"os"
	"path/filepath"
	"testing"
)

// A harness's section is replaced in place, the rest of the file kept;
// a file without it gets it at its end.
func TestWriteSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "B.md")
	os.WriteFile(path, []byte("# B\n\n<!-- section: bench/x -->\nold\n<!-- end: bench/x -->\n\nafter\n"), 0o644)
	if err := WriteSection(path, "x", "new\n"); err != nil {
		t.Fatal(err)
	}
	if err := WriteSection(path, "y", "why\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "# B\n\n<!-- section: bench/x -->\nnew\n<!-- end: bench/x -->\n\nafter\n\n<!-- section: bench/y -->\nwhy\n<!-- end: bench/y -->\n"
	if string(b) != want {
		t.Errorf("got\n%q\nwant\n%q", b, want)
	}
}
