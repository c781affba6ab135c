// Package benchutil is what the benchmark harnesses (bench/run,
// bench/agent) share: finding the repository, building, the getppid loop,
// the machine's load, medians and numbers as the reports print them.
package benchutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/internal/value"
)

// Discard is a tracer session's sink that keeps nothing of its output:
// the harnesses that measure a program's cost, not what it prints.
type Discard struct{}

// Firing implements tracer.Sink.
func (Discard) Firing(*value.Firing) {}

// Fault implements tracer.Sink.
func (Discard) Fault(*value.Fault) {}

// SetOption implements tracer.Sink.
func (Discard) SetOption(string, string) {}

// Final implements tracer.Sink.
func (Discard) Final([]*value.Aggregation) {}

// Loss implements tracer.Sink.
func (Discard) Loss(value.Loss) {}

// Build runs argv in dir, its output in the error when it fails.
func Build(dir string, argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %w\n%s", argv, err, out)
	}
	return nil
}

// RepoRoot is the directory holding go.mod, from the working directory up.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the repository: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Loadavg is the one-minute load average, -1 if unknown.
func Loadavg() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var l float64
	if _, err := fmt.Sscan(string(data), &l); err != nil {
		return -1
	}
	return l
}

// Median of xs, 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Num prints a number with three significant digits at most, as the
// reports' tables do.
func Num(x float64) string {
	switch {
	case x >= 100 || x <= -100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10 || x <= -10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// RunLoop runs the getppid loop (bench/loop) once: calls calls, pinned to
// cpu unless it is negative, and returns the ns per call it prints.
func RunLoop(loop string, calls, cpu int) (float64, error) {
	args := []string{strconv.Itoa(calls)}
	if cpu >= 0 {
		args = append(args, strconv.Itoa(cpu))
	}
	out, err := exec.Command(loop, args...).Output()
	if err != nil {
		return 0, fmt.Errorf("loop: %w", err)
	}
	return strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
}

// WriteSection replaces the section of the Markdown file path that
// harness owns, between "<!-- section: bench/HARNESS -->" and
// "<!-- end: bench/HARNESS -->", with text, leaving the rest as it is; a
// file without the section gets it appended.
func WriteSection(path, harness, text string) error {
	start, end := "<!-- section: bench/"+harness+" -->", "<!-- end: bench/"+harness+" -->"
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	doc := string(data)
	section := start + "\n" + text + end + "\n"
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i >= 0 && j > i {
		doc = doc[:i] + section + strings.TrimPrefix(doc[j+len(end):], "\n")
	} else {
		doc = strings.TrimRight(doc, "\n") + "\n\n" + section
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}
