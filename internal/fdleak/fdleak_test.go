package fdleak

import (
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Check(m)) }

// A file opened after the snapshot is reported, and no longer once closed.
func TestLeaked(t *testing.T) {
	before := Open()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	got := Leaked(before)
	if len(got) != 1 || !strings.Contains(got[0], "/proc/") {
		t.Errorf("Leaked = %v, want the one file opened", got)
	}
	f.Close()
	if got := Leaked(before); len(got) != 0 {
		t.Errorf("after Close, Leaked = %v", got)
	}
}
