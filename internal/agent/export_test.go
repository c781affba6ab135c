package agent

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// The default datasets are exported from the first start; the export
// mark is set and cleared by SetExport and survives a restart.
func TestExportMark(t *testing.T) {
	st := NewMemStore()
	r := newRig(t, st, Config{})
	for _, d := range r.a.Datasets() {
		if !d.Export {
			t.Errorf("default dataset %s not exported", d.Name)
		}
	}
	if d := r.create(t, "fake.ops[k]", analytics.Archived); d.Export {
		t.Errorf("created exported: %+v", d)
	}
	if d, err := r.a.SetExport("fake.ops[k]", true); err != nil || !d.Export {
		t.Fatalf("SetExport: %+v %v", d, err)
	}
	if _, err := r.a.SetExport("syscall.ops", false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.SetExport("nope", true); err == nil {
		t.Error("SetExport of no dataset: no error")
	}
	r.a.Close()
	r2 := newRig(t, st, Config{})
	for name, want := range map[string]bool{"fake.ops[k]": true, "syscall.ops": false, "io.ops": true} {
		if d, err := r2.a.Dataset(name); err != nil || d.Export != want {
			t.Errorf("after restart %s: export %v (%v), want %v", name, d.Export, err, want)
		}
	}
}
