package target

import (
	"reflect"
	"testing"

	"golang.org/x/sys/unix"
)

// A -c command is split into words as dtrace's is: on blanks, quotes
// grouping (and removed).
func TestSplitCommand(t *testing.T) {
	tests := map[string][]string{
		"ls -l":                   {"ls", "-l"},
		"  sleep\t1\n":            {"sleep", "1"},
		`sh -c "echo a  b"`:       {"sh", "-c", "echo a  b"},
		`printf '%s\n' x`:         {"printf", `%s\n`, "x"},
		`a""b ''`:                 {"ab", ""},
		"":                        nil,
		`dd if=/dev/zero count=1`: {"dd", "if=/dev/zero", "count=1"},
	}
	for in, want := range tests {
		if got := splitCommand(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitCommand(%q) = %q, want %q", in, got, want)
		}
	}
}

// How a command ended, in dtrace's words.
func TestExitNotice(t *testing.T) {
	tests := []struct {
		ws   unix.WaitStatus
		want string
	}{
		{0, "pid 7 has exited"},
		{3 << 8, "pid 7 exited with status 3"},
		{unix.WaitStatus(unix.SIGKILL), "pid 7 terminated by SIGKILL"},
	}
	for _, tt := range tests {
		if got := exitNotice(7, tt.ws); got != tt.want {
			t.Errorf("exitNotice(%#x) = %q, want %q", int(tt.ws), got, tt.want)
		}
	}
}
