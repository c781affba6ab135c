package lib

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tree writes files (path relative to the returned directory: text).
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func names(libs []*Library) []string {
	var out []string
	for _, l := range libs {
		out = append(out, l.Name)
	}
	return out
}

func TestPath(t *testing.T) {
	t.Setenv(EnvVar, "/e1:/e2")
	saved := DefaultDir
	DefaultDir = "/def"
	defer func() { DefaultDir = saved }()
	got := Path([]string{"/l1", "/l2"}, []string{"/x"})
	want := []Dir{{"/l1", true}, {"/l2", true}, {"/x", true}, {"/e1", false}, {"/e2", false}, {"/def", false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Path = %v, want %v", got, want)
	}
}

func TestLoadOrder(t *testing.T) {
	root := tree(t, map[string]string{
		"a/app.d":    "#pragma D depends_on library mid.d\ntypedef mid_t app_t;\n",
		"a/mid.d":    "#pragma D depends_on library zbase.d\ntypedef struct mid { base_t b; } mid_t;\n",
		"a/zbase.d":  "typedef int base_t;\n",
		"a/solo.d":   "inline int SOLO = 1;\n",
		"a/notd.txt": "not a library",
		"b/solo.d":   "this one is hidden by a/solo.d {",
		"b/more.d":   "#pragma D depends_on provider nosuch\n#pragma D depends_on module foo\ninline int MORE = 1;\n",
		"b/dep.d":    "#pragma D depends_on library more.d\ninline int DEP = 1;\n",
	})
	libs, errs, err := Load([]Dir{{filepath.Join(root, "a"), true}, {filepath.Join(root, "b"), true}, {filepath.Join(root, "absent"), false}})
	if err != nil || len(errs) > 0 {
		t.Fatalf("Load: %v %v", err, errs)
	}
	if got, want := names(libs), []string{"zbase.d", "mid.d", "app.d", "solo.d", "more.d", "dep.d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if got, want := TypeNames(libs), []string{"app_t", "base_t", "mid_t"}; !reflect.DeepEqual(got, want) {
		t.Errorf("TypeNames = %v, want %v", got, want)
	}
	kept := Select(libs, func(p string) bool { return p != "nosuch" })
	if got, want := names(kept), []string{"zbase.d", "mid.d", "app.d", "solo.d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Select = %v, want %v", got, want)
	}
	if got := names(Select(libs, nil)); len(got) != len(libs) {
		t.Errorf("Select(nil) = %v", got)
	}
	if len(Programs(kept)) != len(kept) {
		t.Errorf("Programs: %d programs for %d libraries", len(Programs(kept)), len(kept))
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct {
		files map[string]string
		want  string // "file:line:col TAG message", a prefix
	}{
		{map[string]string{"x.d": "/* c */\n#pragma D depends_on library nothere.d\n"},
			"x.d:2:1 D_PRAGMA_DEPEND failed to find dependency in libpath: nothere.d"},
		{map[string]string{"a.d": "#pragma D depends_on library b.d\n", "b.d": "#pragma D depends_on library a.d\n"},
			"b.d:1:1 D_PRAGMA_DEPEND cyclic dependency on library a.d"},
		{map[string]string{"x.d": "#pragma D depends_on library\n"},
			"x.d:1:1 D_PRAGMA_MALFORM malformed #pragma depends_on <class> <name>"},
		{map[string]string{"x.d": "#pragma D depends_on planet mars\n"},
			"x.d:1:1 D_PRAGMA_INVAL invalid class planet specified by #pragma depends_on"},
		{map[string]string{"x.d": "inline int X = 1;\nBEGIN { trace(X); }\n"},
			"x.d:2:1 D_LIB_CLAUSE probe clauses are not allowed in a library"},
		{map[string]string{"x.d": "typedef struct { int a } t;\n"},
			"x.d:1:24 D_SYNTAX"},
	} {
		root := tree(t, tt.files)
		_, errs, err := Load([]Dir{{root, true}})
		if err != nil {
			t.Fatalf("%v: %v", tt.files, err)
		}
		if len(errs) != 1 {
			t.Errorf("%v: %d errors, want 1: %v", tt.files, len(errs), errs)
			continue
		}
		e := errs[0]
		got := strings.TrimPrefix(e.Pos.String(), root+"/") + " " + e.Tag + " " + e.Msg
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	if _, _, err := Load([]Dir{{"/nonexistent/sonde-lib", true}}); err == nil || !strings.Contains(err.Error(), "/nonexistent/sonde-lib") {
		t.Errorf("a missing -L directory: error %v", err)
	}
	if libs, errs, err := Load([]Dir{{"/nonexistent/sonde-lib", false}}); err != nil || len(errs) > 0 || len(libs) > 0 {
		t.Errorf("a missing default directory: %v %v %v", libs, errs, err)
	}
}
