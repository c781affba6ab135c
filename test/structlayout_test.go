package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// structDecls are struct and union declarations in the common ground of C
// and D, for TestStructLayout: natural alignment, padding, bit-fields
// packed into their storage units (and a unit left when one does not
// fit), a zero-width bit-field, unions, nested structs and arrays.
const structDecls = `
struct s1 { char a; int b; char c; };
struct s2 { char a; long b; short c; char d[3]; };
struct s3 { unsigned int f1:3, f2:5; int s3:4; char c; };
struct s4 { char a; unsigned int b:30; unsigned int c:4; short d; };
struct s5 { long x:40; int y:20; char z; };
struct s6 { char a:3; char b:7; short c:9; };
struct s7 { int a:3; int :0; int b:3; };
union u1 { char a; int b; long c; char d[13]; };
struct s8 { char a; union u1 u; struct s1 s[3]; short t; };
struct s9 { unsigned char a:1; unsigned long b:63; };
`

// structMembers lists, per struct, the members whose offsets are compared
// (bit-fields have no offset).
var structMembers = map[string][]string{
	"struct s1": {"a", "b", "c"},
	"struct s2": {"a", "b", "c", "d"},
	"struct s3": {"c"},
	"struct s4": {"a", "d"},
	"struct s5": {"z"},
	"struct s6": {},
	"struct s7": {},
	"union u1":  {"a", "b", "c", "d"},
	"struct s8": {"a", "u", "s", "t"},
	"struct s9": {},
}

// TestStructLayout checks sizeof and offsetof of declared structs and
// unions, as D computes them, against gcc's for the same declarations on
// this machine: D lays out its types as the C compiler does (the guide's
// "Member Sizes and Offsets", "Bit-Fields").
func TestStructLayout(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatal("gcc is needed to check struct layouts: install it (Debian: gcc)")
	}
	var names []string
	for n := range structMembers {
		names = append(names, n)
	}
	var c, d strings.Builder
	c.WriteString("#include <stdio.h>\n#include <stddef.h>\n" + structDecls + "int main(void) {\n")
	d.WriteString(structDecls + "BEGIN {\n")
	for _, n := range names {
		c.WriteString("printf(\"" + n + " %zu\\n\", sizeof(" + n + "));\n")
		d.WriteString("printf(\"" + n + " %d\\n\", sizeof(" + n + "));\n")
		for _, m := range structMembers[n] {
			c.WriteString("printf(\"" + n + "." + m + " %zu\\n\", offsetof(" + n + ", " + m + "));\n")
			d.WriteString("printf(\"" + n + "." + m + " %d\\n\", offsetof(" + n + ", " + m + "));\n")
		}
	}
	c.WriteString("return 0; }\n")
	d.WriteString("exit(0); }\n")
	dir := t.TempDir()
	src := filepath.Join(dir, "layout.c")
	if err := os.WriteFile(src, []byte(c.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "layout")
	if out, err := exec.Command(gcc, "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	want, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(sonde, "-qn", d.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("sonde: %v\n%s", err, got)
	}
	if strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
		t.Errorf("layouts differ\nsonde:\n%s\ngcc:\n%s", got, want)
	}
}
