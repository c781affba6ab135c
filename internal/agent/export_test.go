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

// Buckets of two scales in one second (a distribution exported, or no
// longer, within it) share indexes, not ranges: merging adds them range
// by range. (They were added index by index: 3 events in [1000, 1500)
// and 4 in [129, 137) became 7 in [1000, 1500).)
func TestMergeKeepsRanges(t *testing.T) {
	a := []analytics.Row{{Value: 3, Buckets: []analytics.Bucket{{Index: 5, Min: 1000, Max: 1500, Count: 3}}}}
	b := []analytics.Row{{Value: 5, Buckets: []analytics.Bucket{{Index: 5, Min: 129, Max: 137, Count: 4}, {Index: 6, Min: 1000, Max: 1500, Count: 1}}}}
	got := merge(a, b)
	want := []analytics.Bucket{{Index: 5, Min: 129, Max: 137, Count: 4}, {Index: 5, Min: 1000, Max: 1500, Count: 4}}
	if len(got) != 1 || got[0].Value != 8 || len(got[0].Buckets) != 2 || got[0].Buckets[0] != want[0] || got[0].Buckets[1].Min != 1000 || got[0].Buckets[1].Count != 4 {
		t.Errorf("merged %+v, want value 8 and buckets %+v", got, want)
	}
}

// Marking a running distribution for export restarts its collection on
// the plan for export (another scale): the second it happens in keeps
// what both sessions counted, each bucket in its own range, and the
// mark survives a restart with its program.
func TestExportReplansDistribution(t *testing.T) {
	st := NewMemStore()
	st.meta[keyInit] = []byte("test")
	r := newRig(t, st, Config{})
	r.create(t, "fake.lat", analytics.Archived)
	r.k.addBucket("fake.lat", "", 3, 2)
	d, err := r.a.SetExport("fake.lat", true)
	if err != nil || !d.Export || d.Program != "fake program of fake.lat for export" {
		t.Fatalf("SetExport: %+v %v", d, err)
	}
	r.k.addBucket("fake.lat", "", 3, 5) // counted by the new session (it primed at 2)
	r.second()
	secs := r.data(t, "fake.lat", t0, 1, analytics.PerSecond)
	if len(secs) != 1 || len(secs[0].Rows) != 1 {
		t.Fatalf("got %+v", secs)
	}
	want := []analytics.Bucket{{Index: 3, Min: 30, Max: 40, Count: 2}, {Index: 3, Min: 300, Max: 400, Count: 5}}
	if row := secs[0].Rows[0]; row.Value != 7 || len(row.Buckets) != 2 || row.Buckets[0] != want[0] || row.Buckets[1] != want[1] {
		t.Errorf("row %+v, want value 7 and buckets %+v", row, want)
	}
	r.a.Close()
	r2 := newRig(t, st, Config{})
	if d, _ := r2.a.Dataset("fake.lat"); !d.Export || d.Program != "fake program of fake.lat for export" {
		t.Errorf("after restart: %+v", d)
	}
}
