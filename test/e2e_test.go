// Package test is sonde's end-to-end suite, run as root against the real
// kernel, in the manner of DTrace's own: every cases/**/tst.NAME.d must run
// to completion and print exactly tst.NAME.d.out (or match the regular
// expressions of tst.NAME.d.re, one per line); every err.D_TAG.NAME.d must
// fail with that error tag. Directives in a case's comments:
//
//	@@opts: extra command-line arguments (shell words)
//	@@status: the expected exit status (default 0)
//	@@stderr: a substring stderr must contain
//	@@setup: a shell command run first (e.g. to build a C workload)
//	@@args: macro arguments after the script ($1, $2, ...)
//	@@spawn: a command started in the background before sonde runs (e.g.
//	         "sleep 2" for -p); {spawn} in @@opts and @@args is replaced by
//	         its pid, and it is killed after sonde exits if still running
package test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var sonde string

// scratch is this run's directory for what cases build: the "/tmp/sonde-"
// of their directives is made "SCRATCH/sonde-", so that suites running at
// once (two checkouts on one machine) do not overwrite each other's
// programs.
var scratch string

func TestMain(m *testing.M) {
	root, _ := filepath.Abs("..")
	sonde = filepath.Join(root, "bin", "sonde")
	if os.Geteuid() != 0 {
		os.Stderr.WriteString("the end-to-end suite must run as root\n")
		os.Exit(1)
	}
	for _, cmd := range []string{"sonde", "sonded"} {
		build := exec.Command("go", "build", "-o", filepath.Join(root, "bin", cmd), "./cmd/"+cmd)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build
		if out, err := build.CombinedOutput(); err != nil {
			os.Stderr.Write(out)
			os.Exit(1)
		}
	}
	dir, err := os.MkdirTemp("", "sonde-e2e-")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// inScratch puts the case's /tmp/sonde-* files (also in -I/tmp/sonde-x,
// not /var/tmp/sonde-x) in this run's directory.
func inScratch(ss []string) {
	const varTmp = "\x00vartmp\x00"
	for i := range ss {
		s := strings.ReplaceAll(ss[i], "/var/tmp/sonde-", varTmp)
		s = strings.ReplaceAll(s, "/tmp/sonde-", scratch+"/sonde-")
		ss[i] = strings.ReplaceAll(s, varTmp, "/var/tmp/sonde-")
	}
}

type directives struct {
	opts   []string
	status int
	stderr []string
	setup  []string
	args   []string
	spawn  []string
}

var directive = regexp.MustCompile(`@@(\w+):\s*(.*?)\s*(\*/)?$`)

func parseDirectives(t *testing.T, src string) directives {
	var d directives
	for _, line := range strings.Split(src, "\n") {
		m := directive.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch m[1] {
		case "opts":
			d.opts = append(d.opts, shellWords(m[2])...)
		case "status":
			n, err := strconv.Atoi(m[2])
			if err != nil {
				t.Fatalf("bad @@status %q", m[2])
			}
			d.status = n
		case "stderr":
			d.stderr = append(d.stderr, m[2])
		case "args":
			d.args = append(d.args, shellWords(m[2])...)
		case "setup":
			d.setup = append(d.setup, m[2])
		case "spawn":
			d.spawn = append(d.spawn, m[2])
		}
	}
	return d
}

// shellWords splits like a shell, honouring single and double quotes.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, q := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			q, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func TestCases(t *testing.T) {
	files, _ := filepath.Glob("cases/*/*.d")
	if len(files) == 0 {
		t.Fatal("no test cases found")
	}
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.HasPrefix(base, "tst.") && !strings.HasPrefix(base, "err.") {
			continue
		}
		f := f
		t.Run(strings.TrimSuffix(strings.TrimPrefix(f, "cases/"), ".d"), func(t *testing.T) {
			runCase(t, f)
		})
	}
}

func runCase(t *testing.T, file string) {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := parseDirectives(t, string(src))
	for _, ss := range [][]string{d.opts, d.stderr, d.setup, d.args, d.spawn} {
		inScratch(ss)
	}
	dir := filepath.Dir(file)
	for _, s := range d.setup {
		cmd := exec.Command("/bin/sh", "-c", s)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("setup %q: %v\n%s", s, err, out)
		}
	}
	for _, s := range d.spawn {
		bg := exec.Command("/bin/sh", "-c", "exec "+s)
		bg.Dir = dir
		if err := bg.Start(); err != nil {
			t.Fatalf("spawn %q: %v", s, err)
		}
		defer func() {
			bg.Process.Kill()
			bg.Wait()
		}()
		pid := strconv.Itoa(bg.Process.Pid)
		for i := range d.opts {
			d.opts[i] = strings.ReplaceAll(d.opts[i], "{spawn}", pid)
		}
		for i := range d.args {
			d.args[i] = strings.ReplaceAll(d.args[i], "{spawn}", pid)
		}
	}
	base := filepath.Base(file)
	args := append([]string{}, d.opts...)
	isErr := strings.HasPrefix(base, "err.")
	if isErr {
		args = append(args, "-x", "errtags")
	}
	args = append(args, "-s", base)
	args = append(args, d.args...)
	// a hang guard: misc/tst.complexclause's verifier run (a million
	// instructions) took past a minute on a loaded 2-CPU machine
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sonde, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running sonde: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("timed out\nstderr:\n%s", stderr.String())
	}
	if isErr {
		tag := strings.Split(base, ".")[1]
		if status == 0 {
			t.Fatalf("expected failure with %s, got status 0\nstdout:\n%s", tag, stdout.String())
		}
		if !strings.Contains(stderr.String(), "["+tag+"]") {
			t.Fatalf("expected error tag %s, stderr:\n%s", tag, stderr.String())
		}
		for _, s := range d.stderr {
			if !strings.Contains(stderr.String(), s) {
				t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
			}
		}
		return
	}
	if status != d.status {
		t.Fatalf("exit status %d, want %d\nstderr:\n%s\nstdout:\n%s", status, d.status, stderr.String(), stdout.String())
	}
	for _, s := range d.stderr {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
	if want, err := os.ReadFile(file + ".out"); err == nil {
		if got := stdout.String(); got != string(want) {
			t.Errorf("output differs\n--- got ---\n%s--- want ---\n%s--- stderr ---\n%s", got, want, stderr.String())
		}
		return
	}
	if re, err := os.ReadFile(file + ".re"); err == nil {
		matchLines(t, stdout.String(), string(re), stderr.String())
		return
	}
	t.Fatalf("no %s.out or .re file", base)
}

// matchLines matches output line by line against regular expressions.
func matchLines(t *testing.T, got, res, stderr string) {
	gl := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	rl := strings.Split(strings.TrimSuffix(res, "\n"), "\n")
	if len(gl) != len(rl) {
		t.Fatalf("got %d lines, want %d\n--- got ---\n%s--- patterns ---\n%s--- stderr ---\n%s", len(gl), len(rl), got, res, stderr)
	}
	for i := range rl {
		re, err := regexp.Compile("^" + rl[i] + "$")
		if err != nil {
			t.Fatalf("bad pattern %q: %v", rl[i], err)
		}
		if !re.MatchString(gl[i]) {
			t.Fatalf("line %d: %q does not match %q\n--- got ---\n%s", i+1, gl[i], rl[i], got)
		}
	}
}
