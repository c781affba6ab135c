package agent

import (
	"sync"
	"testing"

	"github.com/sonde-trace/sonde/internal/analytics"
)

type recorder struct {
	mu   sync.Mutex
	seen map[string][]analytics.Second
}

func (r *recorder) Observe(ds string, s analytics.Second) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[ds] = append(r.seen[ds], s)
}

// The observer sees every second kept, archived and open alike, with the
// rows the store (or memory) gets, once each, in order.
func TestObserverSeesSecondsKept(t *testing.T) {
	r := newRig(t, nil, Config{})
	rec := &recorder{seen: map[string][]analytics.Second{}}
	r.a.SetObserver(rec)
	r.create(t, "fake.ops[k]", analytics.Archived)
	r.create(t, "fake.ops", analytics.Open)
	for i := 0; i < 5; i++ {
		r.k.add("fake.ops", "write", int64(i+1))
		r.second()
	}
	stored := r.data(t, "fake.ops[k]", t0, 10, analytics.PerSecond)
	got := rec.seen["fake.ops[k]"]
	if len(got) != len(stored) || len(got) != 5 {
		t.Fatalf("observed %d seconds of fake.ops[k], the store has %d, want 5", len(got), len(stored))
	}
	for i := range got {
		if !got[i].Time.Equal(stored[i].Time) || sum(got[i:i+1], "write") != sum(stored[i:i+1], "write") {
			t.Errorf("second %d: observed %+v, stored %+v", i, got[i], stored[i])
		}
	}
	if n := len(rec.seen["fake.ops"]); n != 5 {
		t.Errorf("observed %d seconds of the open dataset, want 5", n)
	}
}
