package main

// A second sonde, built from a git ref (-base REF), measured side by side
// with bin/sonde in the same run: each sonde command line of the
// configuration is run again with {sonde} replaced by the base binary, as
// the tool "sonde@REF", after sonde and in the same turns, and each table
// gains its column and the ratio sonde/sonde@REF. It shows what a change
// to sonde costs, on the same machine under the same load.

import (
	"fmt"
	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// base is the sonde built from a git ref.
type base struct {
	ref    string // as given on the command line
	commit string // what it resolved to
	head   string // the commit of the repository's working tree, for the report
	path   string // the binary
}

// tool is the base's name as a column of the report.
func (bs *base) tool() string { return "sonde@" + bs.ref }

// buildBase builds cmd/sonde as it is at ref into dir, from a detached
// worktree in dir that is removed again once built.
func buildBase(root, ref, dir string) (*base, error) {
	bs := &base{ref: ref, path: filepath.Join(dir, "sonde-base")}
	var err error
	if bs.commit, err = gitOutput(root, "rev-parse", "--verify", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("-base %s: %w", ref, err)
	}
	if bs.head, err = gitOutput(root, "rev-parse", "--short", "HEAD"); err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "base-src")
	if err := benchutil.Build(root, "git", "worktree", "add", "--detach", src, bs.commit); err != nil {
		return nil, err
	}
	defer benchutil.Build(root, "git", "worktree", "remove", "--force", src)
	// as make build builds bin/sonde: a base that links net would
	// otherwise carry a cgo runtime that bin/sonde does not
	build := exec.Command("go", "build", "-trimpath", "-o", bs.path, "./cmd/sonde")
	build.Dir, build.Env = src, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build %s at %s: %w\n%s", "./cmd/sonde", ref, err, out)
	}
	return bs, nil
}

// gitOutput runs git in dir and returns its output's first line.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]), nil
}

// addBase gives the base every command line sonde has, {sonde} in them
// standing for the base binary.
func (c *Config) addBase(name string) {
	var runs []*ToolRun
	for _, t := range c.Tools {
		if t.Tool != "sonde" {
			continue
		}
		b := *t
		b.Tool = name
		b.Argv = make([]string, len(t.Argv))
		for i, a := range t.Argv {
			b.Argv[i] = strings.ReplaceAll(a, "{sonde}", "{"+name+"}")
		}
		runs = append(runs, &b)
	}
	c.Tools = append(c.Tools, runs...)
}

// describe is the paragraph of BENCHMARKS.md that says what the base is.
func (bs *base) describe() string {
	return fmt.Sprintf("- **%s**: cmd/sonde as of commit %s,\n"+
		"  built as `make build` builds bin/sonde (`CGO_ENABLED=0 go build -trimpath`)\n"+
		"  from a detached worktree for this run\n"+
		"  (`go run ./bench/run -base %s`) and run with sonde's command lines:\n"+
		"  the sonde before a change, measured side by side with `bin/sonde` (the\n"+
		"  repository's HEAD was %s).\n",
		bs.tool(), bs.commit, bs.ref, bs.head)
}
