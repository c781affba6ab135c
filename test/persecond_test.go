package test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// examples/persecond samples a dataset the way the agent will, from the
// tracer library: per-second counts differenced from cumulative ones. Over
// the seconds a dd ran, its write(2)s add up to exactly what it made.
func TestPerSecondExample(t *testing.T) {
	root, _ := filepath.Abs("..")
	bin := filepath.Join(t.TempDir(), "persecond")
	build := exec.Command("go", "build", "-o", bin, "./examples/persecond")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// A name of this run's: another checkout's test may run a dd at once.
	name := "ddps" + strconv.Itoa(os.Getpid()%100000)
	dd := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "/bin/dd", dd).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-n", "4", "-top", "20", `execname == "`+name+`"`)
	cmd.Stderr = os.Stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() { // the first second is out: the probes are attached
		t.Fatalf("persecond printed nothing")
	}
	const n = 12345
	if out, err := exec.Command(dd, "if=/dev/zero", "of=/dev/null", "bs=1", "count="+strconv.Itoa(n), "status=none").CombinedOutput(); err != nil {
		t.Fatalf("dd: %v\n%s", err, out)
	}
	writes, lines := 0, 0
	for sc.Scan() {
		lines++
		for _, f := range strings.Fields(sc.Text()) {
			if v, ok := strings.CutPrefix(f, "write="); ok {
				k, _ := strconv.Atoi(v)
				writes += k
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("persecond: %v", err)
	}
	if lines != 3 || writes != n {
		t.Errorf("%d more seconds with %d writes, want 3 with %d", lines, writes, n)
	}
}
