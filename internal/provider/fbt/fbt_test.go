package fbt_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/fbt"
)

// Naming fbt explains what the kernel lacks; globs that happen to cover
// it (*:::entry) are not turned into errors.
func TestExplains(t *testing.T) {
	_, kprobes := os.Stat("/sys/bus/event_source/devices/kprobe")
	for _, d := range []provider.Desc{{Provider: "fbt"}, {Provider: "fbt", Function: "vfs_read", Name: "entry"}} {
		ps, err := fbt.Provider{}.Probes(d)
		if err == nil || ps != nil {
			t.Fatalf("%s: %v, %v; want an error", d, ps, err)
		}
		want := "the fbt provider needs kprobes (or fentry/fexit), which this kernel lacks"
		if kprobes == nil {
			want = "not implemented"
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %q, want it to say %q", d, err, want)
		}
	}
	if kprobes != nil && fbt.Available() == nil {
		t.Error("Available: no error on a kernel without kprobes")
	}
	for _, d := range []provider.Desc{{}, {Name: "entry"}, {Provider: "f*"}, {Provider: "*", Name: "return"}} {
		if ps, err := (fbt.Provider{}).Probes(d); ps != nil || err != nil {
			t.Errorf("%s: %v, %v; want nothing", d, ps, err)
		}
	}
	if _, err := (fbt.Provider{}).Prologue(provider.Hook{}, nil, provider.Needs{}, "exit"); err == nil {
		t.Error("a prologue for fbt, which has no probes")
	}
}
