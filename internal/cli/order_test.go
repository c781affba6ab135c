package cli

import (
	"strings"
	"testing"
)

// Flags may come before the command, as "sonde analytics -url U datasets".
func TestCommandFirst(t *testing.T) {
	tests := map[string]string{
		"datasets -url U":             "datasets -url U",
		"-url U datasets":             "datasets -url U",
		"-url=U -token T read x -o c": "read -url=U -token T x -o c",
		"-url U":                      "-url U",
	}
	for in, want := range tests {
		if got := strings.Join(commandFirst(strings.Fields(in)), " "); got != want {
			t.Errorf("commandFirst(%q) = %q, want %q", in, got, want)
		}
	}
}
