// Command run is sonde's benchmark harness. As root, from anywhere in the
// repository:
//
//	go run ./bench/run          # print the report
//	go run ./bench/run -write   # and rewrite BENCHMARKS.md
//	go run ./bench/run -base REF  # and sonde as of git REF, side by side
//	go run ./bench/run -starts 9  # 9 starts of each tool per program (a busy machine)
//
// It builds bench/floor (hand-written BPF, the floor), bench/loop (a
// getppid loop) and bench/hot (a CPU-bound call tree), the last two with
// gcc, then measures, for each program of bench/tools.json and each tool
// that is present (floor, bpftrace, bin/sonde): the ns each traced getppid
// call costs over an untraced one, the time from exec until the tool says
// it is attached, the time from SIGINT until it has exited, and its peak
// RSS; for the profile program, the BPF run time per sample and the tool's
// CPU time while bench/hot runs on every CPU and at exit (profile.go).
// Tools that are absent are reported as not measured. Benchmarks are not
// tests: nothing here passes or fails on a number.
package main

import (
	"flag"
	"fmt"
	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func main() {
	write := flag.Bool("write", false, "also rewrite BENCHMARKS.md at the repository root")
	calls := flag.Int("n", 1000000, "getppid calls per loop run")
	reps := flag.Int("reps", 5, "loop runs per start of a tool, traced and untraced")
	cpu := flag.Int("cpu", 1, "CPU to pin the loop to (-1: none)")
	sonde := flag.String("sonde", "", "sonde binary (default: bin/sonde in the repository)")
	config := flag.String("config", "", "tool command lines (default: bench/tools.json)")
	timeout := flag.Duration("timeout", 3*time.Minute, "longest wait for a tool to attach, and to exit")
	only := flag.String("only", "", "measure only this scenario id")
	skip := flag.String("skip", "", "comma-separated tools not to measure in this run (floor, bpftrace, sonde)")
	baseRef := flag.String("base", "", "also build cmd/sonde at this git ref and measure it as sonde@REF")
	nstarts := flag.Int("starts", 0, "starts of each tool per program (0: as the configuration says); a tool's own count, where it has one, is kept")
	flag.Parse()

	opts := options{write: *write, calls: *calls, reps: *reps, cpu: *cpu, sonde: *sonde,
		config: *config, only: *only, skip: *skip, base: *baseRef, timeout: *timeout, starts: *nstarts}
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	write            bool
	calls, reps, cpu int
	sonde, config    string
	only, skip       string
	base             string // git ref of a second sonde to measure, or ""
	timeout          time.Duration
	starts           int // overrides the scenarios' starts when > 0
}

func run(o options) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("must run as root: it loads BPF programs")
	}
	root, err := benchutil.RepoRoot()
	if err != nil {
		return err
	}
	if o.sonde == "" {
		o.sonde = filepath.Join(root, "bin", "sonde")
	}
	if o.config == "" {
		o.config = filepath.Join(root, "bench", "tools.json")
	}
	cfg, err := loadConfig(o.config)
	if err != nil {
		return err
	}
	if o.starts > 0 {
		for _, s := range cfg.Scenarios {
			s.Starts = o.starts
		}
	}
	tmp, err := os.MkdirTemp("", "sonde-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		killAll()
		os.RemoveAll(tmp)
		fmt.Fprintln(os.Stderr, "bench: interrupted")
		os.Exit(130)
	}()

	progress := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	}
	progress("building floor, loop and hot in %s", tmp)
	floor, loop, hot := filepath.Join(tmp, "floor"), filepath.Join(tmp, "loop"), filepath.Join(tmp, "hot")
	if err := benchutil.Build(root, "go", "build", "-o", floor, "./bench/floor"); err != nil {
		return err
	}
	if err := benchutil.Build(root, "gcc", "-O2", "-Wall", "-o", loop, "bench/loop/loop.c"); err != nil {
		return err
	}
	if err := benchutil.Build(root, "gcc", "-O1", "-fno-omit-frame-pointer", "-Wall", "-o", hot, "bench/hot/hot.c"); err != nil {
		return err
	}
	if o.cpu >= runtime.NumCPU() {
		o.cpu = -1 // not there: leave the loop unpinned
	}
	paths, missing := resolve(floor, o.sonde)
	columns := tools
	var bs *base
	if o.base != "" {
		progress("building sonde at %s in %s", o.base, tmp)
		if bs, err = buildBase(root, o.base, tmp); err != nil {
			return err
		}
		cfg.addBase(bs.tool())
		paths[bs.tool()] = bs.path
		columns = append(append([]string(nil), tools...), bs.tool())
	}
	for _, tool := range strings.Split(o.skip, ",") {
		if tool != "" {
			missing[tool] = "not measured in this run (-skip)"
			delete(paths, tool)
		}
	}
	b := &bench{loop: loop, hot: hot, calls: o.calls, reps: o.reps, cpu: o.cpu, paths: paths, timeout: o.timeout, progress: progress}

	rep := &report{cfg: cfg, tools: columns, base: bs, results: map[string]map[string]*Result{}, missing: missing,
		calls: o.calls, reps: o.reps, started: time.Now(), loadBefore: benchutil.Loadavg()}
	rep.measureAll(b, o.only, filepath.Base(o.config))
	rep.took, rep.loadAfter = time.Since(rep.started), benchutil.Loadavg()
	text := rep.markdown()
	fmt.Print(text)
	if o.write {
		doc := rep.document(machine(paths, bs), text)
		// bench/uprobe measures user-level probes on its own and leaves
		// its section here: kept when this document is rewritten.
		if up, err := os.ReadFile(filepath.Join(root, "bench", "uprobe", "RESULTS.md")); err == nil {
			doc = strings.TrimRight(doc, "\n") + "\n\n" + string(up)
		}
		// Other harnesses (bench/store, bench/agent) keep their sections
		// at the end, each between "<!-- section: NAME -->" and
		// "<!-- end: NAME -->": kept as they are.
		if old, err := os.ReadFile(filepath.Join(root, "BENCHMARKS.md")); err == nil {
			if i := strings.Index(string(old), sectionMark); i >= 0 {
				doc = strings.TrimRight(doc, "\n") + "\n\n" + string(old[i:])
			}
		}
		if err := os.WriteFile(filepath.Join(root, "BENCHMARKS.md"), []byte(doc), 0o644); err != nil {
			return err
		}
		progress("wrote %s", filepath.Join(root, "BENCHMARKS.md"))
	}
	return nil
}

// sectionMark starts the sections of BENCHMARKS.md that other harnesses
// write.
const sectionMark = "<!-- section: "

// measureAll measures every tool on every scenario (or on only one). The
// tools take turns on the profile scenario, and on every scenario when a
// base sonde is measured (-base), so that sonde and its base are measured
// under the same load.
func (rep *report) measureAll(b *bench, only, configName string) {
	for _, s := range rep.cfg.Scenarios {
		if only != "" && s.ID != only {
			continue
		}
		rep.results[s.ID] = map[string]*Result{}
		if s.Profile || rep.base != nil {
			rep.measureInTurn(b, s, configName)
			continue
		}
		for _, tool := range rep.tools {
			t := rep.runnable(tool, s.ID, configName)
			if t == nil {
				continue
			}
			r := b.measure(s, t)
			if r.Failed != "" {
				b.progress("%s %s failed: %s", tool, s.ID, r.Failed)
			}
			rep.results[s.ID][tool] = r
		}
	}
}

// measureInTurn measures every tool on a scenario, the tools taking turns
// start by start: other work on the machine changes the number of stacks
// sampled, and so the cost of printing them, and the time to attach, and
// turns spread it over the tools alike. Where the scenario measures
// overhead, each tool's untraced loop runs before each of its starts and
// once more after its last, as in measure.
func (rep *report) measureInTurn(b *bench, s *Scenario, configName string) {
	runs := map[string]*ToolRun{}
	for _, tool := range rep.tools {
		if t := rep.runnable(tool, s.ID, configName); t != nil {
			rep.results[s.ID][tool] = &Result{}
			runs[tool] = t
		}
	}
	for i, more := 0, true; more; i++ {
		more = false
		for _, tool := range rep.tools {
			t, r := runs[tool], rep.results[s.ID][tool]
			if t == nil || r.Failed != "" || i >= starts(s, t) {
				continue
			}
			more = true
			if b.start(s, t, r, i); r.Failed != "" {
				b.progress("%s %s failed: %s", tool, s.ID, r.Failed)
			}
		}
	}
	for _, tool := range rep.tools {
		if runs[tool] != nil {
			b.finish(s, rep.results[s.ID][tool])
		}
	}
}

// runnable returns the command line of tool for scenario id, or nil after
// recording why the tool is skipped (no command line in the configuration,
// or the tool is not installed).
func (rep *report) runnable(tool, id, configName string) *ToolRun {
	t := rep.cfg.run(tool, id)
	switch {
	case t == nil:
		rep.results[id][tool] = &Result{Skipped: "no command line in " + configName}
		return nil
	case rep.missing[tool] != "":
		rep.results[id][tool] = &Result{Skipped: rep.missing[tool]}
		return nil
	}
	return t
}
