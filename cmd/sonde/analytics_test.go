package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sonded is looked for beside sonde's executable, then on $PATH; the
// error names both places.
func TestFindSonded(t *testing.T) {
	dir := t.TempDir()
	sonde := filepath.Join(dir, "sonde")
	exe := func() (string, error) { return sonde, nil }
	onPath := func(string) (string, error) { return "/elsewhere/sonded", nil }
	nowhere := func(string) (string, error) { return "", exec.ErrNotFound }

	if _, err := findSonded(exe, nowhere); err == nil ||
		!strings.Contains(err.Error(), "not at "+filepath.Join(dir, "sonded")+" nor in $PATH") {
		t.Errorf("neither: %v", err)
	}
	if p, err := findSonded(exe, onPath); p != "/elsewhere/sonded" || err != nil {
		t.Errorf("on $PATH: %q, %v", p, err)
	}
	// not executable: not used
	beside := filepath.Join(dir, "sonded")
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, _ := findSonded(exe, onPath); p != "/elsewhere/sonded" {
		t.Errorf("a sonded that is not executable was taken: %q", p)
	}
	if err := os.Chmod(beside, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := findSonded(exe, onPath); p != beside || err != nil {
		t.Errorf("beside: %q, %v, want %s", p, err, beside)
	}
	noExe := func() (string, error) { return "", errors.New("no /proc") }
	if _, err := findSonded(noExe, func(string) (string, error) { return "", exec.ErrDot }); err == nil ||
		!strings.Contains(err.Error(), "found: not in $PATH (one in the current directory is not used)") {
		t.Errorf("no executable, ErrDot: %v", err)
	}
}
