package providers

import (
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
)

// ByID finds a probe by the ID Match gives it, without a description
// naming it first; an ID no probe has is nil.
func TestByID(t *testing.T) {
	ps, err := New().Match(provider.Desc{Provider: "syscall", Function: "read", Name: "entry"})
	if err != nil || len(ps) != 1 {
		t.Fatalf("syscall::read:entry: %v %v", ps, err)
	}
	r := New()
	for id, want := range map[uint32]string{1: "dtrace:::BEGIN", 3: "dtrace:::ERROR", ps[0].ID: "syscall::read:entry"} {
		p, err := r.ByID(id)
		if err != nil || p == nil || p.FullName() != want || p.ID != id {
			t.Errorf("ByID(%d) = %v, %v; want %s", id, p, err, want)
		}
	}
	for _, id := range []uint32{0, 4000000000} {
		if p, err := r.ByID(id); p != nil || err != nil {
			t.Errorf("ByID(%d) = %v, %v; want none", id, p, err)
		}
	}
}
