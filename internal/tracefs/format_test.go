package tracefs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseFormatOldKernel(t *testing.T) {
	f, err := ParseFormat(readTestdata(t, "old_macro_array.format"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Event != "sched_process_fork" || f.ID != 290 || len(f.Common) != 4 {
		t.Fatalf("header: got %q %d with %d common fields", f.Event, f.ID, len(f.Common))
	}
	want := []Field{
		{Name: "parent_comm", Type: "char", Offset: 8, Size: 16, Signed: true, ArrayLen: 16},
		{Name: "parent_pid", Type: "pid_t", Offset: 24, Size: 4, Signed: true},
		{Name: "cpus", Type: "u32", Offset: 28, Size: 8, ArrayLen: 2},
		{Name: "msg", Type: "char", Offset: 36, Size: 4, Signed: true, IsRelLoc: true},
		{Name: "buf", Type: "char", Offset: 40, Size: 0},
	}
	if !reflect.DeepEqual(f.Fields, want) {
		t.Errorf("fields:\n got %+v\nwant %+v", f.Fields, want)
	}
	if want := "\"comm=%s pid=%d\nsecond line\", REC->parent_comm, REC->parent_pid"; f.PrintFmt != want {
		t.Errorf("print fmt: got %q, want %q", f.PrintFmt, want)
	}
	decls := []string{"char parent_comm[16]", "pid_t parent_pid", "u32 cpus[2]", "__rel_loc char[] msg", "char buf[]"}
	for i, fd := range f.Fields {
		if fd.Decl() != decls[i] {
			t.Errorf("Decl: got %q, want %q", fd.Decl(), decls[i])
		}
	}
	if !f.Fields[4].IsArray() || f.Fields[1].IsArray() || f.Fields[3].IsArray() {
		t.Errorf("IsArray wrong for %+v", f.Fields)
	}
}

func TestParseFormatNoBlankLine(t *testing.T) {
	f, err := ParseFormat(readTestdata(t, "no_blank_line.format"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Common) != 1 || len(f.Fields) != 1 || f.Fields[0].Name != "value" {
		t.Errorf("got common %+v fields %+v", f.Common, f.Fields)
	}
}

func TestParseFormatErrors(t *testing.T) {
	for file, want := range map[string]string{
		"bad_offset.format": "line 4: bad offset",
		"no_format.format":  "no format section",
		"bad_decl.format":   `line 4: bad field declaration "int"`,
	} {
		_, err := ParseFormat(readTestdata(t, file))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got error %v, want one containing %q", file, err, want)
		}
	}
}

func TestParseDecl(t *testing.T) {
	for decl, want := range map[string]Field{
		"const char * filename":                {Name: "filename", Type: "const char *"},
		"const char *const * argv":             {Name: "argv", Type: "const char *const *"},
		"struct robust_list_head * * head_ptr": {Name: "head_ptr", Type: "struct robust_list_head * *"},
		"unsigned long args[6]":                {Name: "args", Type: "unsigned long", ArrayLen: 6},
		"__data_loc char[] name":               {Name: "name", Type: "char", IsDataLoc: true},
		"__data_loc unsigned int[] lengths":    {Name: "lengths", Type: "unsigned int", IsDataLoc: true},
		"unsigned short common_type":           {Name: "common_type", Type: "unsigned short"},
	} {
		var got Field
		if err := parseDecl(&got, decl); err != nil {
			t.Errorf("%q: %v", decl, err)
			continue
		}
		if got != want {
			t.Errorf("%q: got %+v, want %+v", decl, got, want)
		}
	}
}
