package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// sondedName is the agent's binary, which runs the analytics commands
// (`sonded analytics ...`, internal/cli).
const sondedName = "sonded"

// analytics runs `sonde analytics ARGS` as `sonded analytics ARGS`,
// replacing sonde (exec): stdin, stdout, stderr, signals and the exit
// status are the command's own. The commands talk HTTP to the agent;
// sonde leaves them to the agent's binary, which links net/http anyway,
// so that tracing does not pay for it (BENCHMARKS.md). It returns only if
// sonded cannot be run.
func analytics(args []string, stderr io.Writer) int {
	path, err := findSonded(os.Executable, exec.LookPath)
	if err == nil {
		err = syscall.Exec(path, append([]string{path, "analytics"}, args...), os.Environ())
		err = fmt.Errorf("run %s: %w", path, err)
	}
	fmt.Fprintf(stderr, "%s analytics: %v\n", progName, err)
	return 1
}

// findSonded finds sonded beside sonde's own executable, then on $PATH.
func findSonded(executable func() (string, error), lookPath func(string) (string, error)) (string, error) {
	var beside string
	if exe, err := executable(); err == nil {
		beside = filepath.Join(filepath.Dir(exe), sondedName)
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	p, err := lookPath(sondedName)
	if err == nil {
		return p, nil
	}
	where := "not in $PATH"
	if beside != "" {
		where = "not at " + beside + " nor in $PATH"
	}
	if errors.Is(err, exec.ErrDot) {
		where += " (one in the current directory is not used)"
	}
	return "", fmt.Errorf("the analytics commands are run by %s, the agent's binary, which was not found: %s", sondedName, where)
}
