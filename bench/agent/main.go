// Command agent measures sonded, the analytics agent. As root, from
// anywhere in the repository (after make build):
//
//	go run ./bench/agent          # print the report
//	go run ./bench/agent -write   # and rewrite its section of BENCHMARKS.md
//
// It starts bin/sonded on a temporary --state-dir with its default
// datasets and measures, in one run:
//
//   - the agent's footprint (footprint.go): its CPU (utime+stime of
//     /proc/PID/stat) and memory (VmRSS, VmHWM of /proc/PID/status) idle
//     and while a getppid loop (bench/loop) runs, for -period each, in
//     turn -repeats times, and the run time of its BPF programs (which
//     runs in the traced threads, not the agent's) meanwhile;
//   - the BPF cost per event of a dataset (cost.go): the program the API
//     shows for syscall.ops[execname], run by the agent, the same D run by
//     sonde -n, and bench/floor's hand-written equivalent, taking turns:
//     the BPF run time per event (the kernel's run-time statistics) and
//     the ns each getppid call gains (traced minus untraced loop runs, as
//     bench/run measures it); the programs' tags show the agent's code
//     apart from sonde -n's (it chooses its aggregation's generation);
//   - the store (bench/store, run as it is: bytes per sample and per
//     distribution-second, a durable second, and the read times of one
//     hour of per-second data of a 50-key breakdown and a week of
//     per-minute data).
//
// The machine is shared: every number is a median over repeats. Benchmarks
// are not tests: nothing here passes or fails on a number.
package main

import (
	"flag"
	"fmt"
	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

func main() {
	var b bench
	write := flag.Bool("write", false, "also rewrite this harness's section of BENCHMARKS.md")
	flag.DurationVar(&b.period, "period", 30*time.Second, "footprint: length of each idle and each loaded period")
	flag.IntVar(&b.repeats, "repeats", 3, "footprint: idle and loaded periods, each")
	flag.DurationVar(&b.settle, "settle", 5*time.Second, "footprint: wait after the agent starts, before measuring")
	flag.IntVar(&b.calls, "n", 1000000, "cost: getppid calls per loop run")
	flag.IntVar(&b.reps, "reps", 5, "cost: loop runs per start, traced and untraced")
	flag.IntVar(&b.starts, "starts", 3, "cost: starts of each tool")
	flag.IntVar(&b.cpu, "cpu", 1, "cost: CPU to pin the loop to (-1: none)")
	flag.Float64Var(&b.budget, "budget", -1, "sonded's --budget (negative: none, so that no dataset is auto-suspended while measured)")
	storeBench := flag.Bool("store", true, "also run bench/store and report its numbers")
	flag.Parse()
	if err := run(&b, *write, *storeBench); err != nil {
		fmt.Fprintln(os.Stderr, "bench/agent:", err)
		os.Exit(1)
	}
}

// bench holds what the measurements share.
type bench struct {
	root, sonde, sonded, floor, loop string

	period, settle         time.Duration
	repeats                int
	budget                 float64
	events                 []event // the agent's, at the end
	calls, reps, starts    int
	cpu                    int
	progress               func(format string, args ...any)
	loadBefore, loadAfter  float64
	began                  time.Time
	took                   time.Duration
	storeOut, storeCommand string
}

func run(b *bench, write, storeBench bool) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("must run as root: it loads BPF programs")
	}
	var err error
	if b.root, err = benchutil.RepoRoot(); err != nil {
		return err
	}
	b.sonde, b.sonded = filepath.Join(b.root, "bin", "sonde"), filepath.Join(b.root, "bin", "sonded")
	for _, p := range []string{b.sonde, b.sonded} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%w (make build)", err)
		}
	}
	if b.cpu >= runtime.NumCPU() {
		b.cpu = -1
	}
	b.progress = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench/agent: "+format+"\n", args...) }
	tmp, err := os.MkdirTemp("", "sonde-bench-agent")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b.floor, b.loop = filepath.Join(tmp, "floor"), filepath.Join(tmp, "loop")
	if err := benchutil.Build(b.root, "go", "build", "-o", b.floor, "./bench/floor"); err != nil {
		return err
	}
	if err := benchutil.Build(b.root, "gcc", "-O2", "-Wall", "-o", b.loop, "bench/loop/loop.c"); err != nil {
		return err
	}
	// The kernel's BPF run-time statistics, on for the whole run (the
	// agent holds them on too while it runs).
	st, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		return fmt.Errorf("BPF_ENABLE_STATS: %w", err)
	}
	defer st.Close()

	b.began, b.loadBefore = time.Now(), benchutil.Loadavg()
	a, err := startAgent(b.sonded, filepath.Join(tmp, "state"), b.budget, time.Minute)
	if err != nil {
		return err
	}
	defer a.kill()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		killChildren()
		a.kill()
		os.RemoveAll(tmp)
		fmt.Fprintln(os.Stderr, "bench/agent: interrupted")
		os.Exit(130)
	}()
	fp, err := b.footprint(a)
	if err != nil {
		return err
	}
	cs, err := b.cost(a)
	if err != nil {
		return err
	}
	if b.events, err = a.events(); err != nil {
		return err
	}
	if err := a.stop(time.Minute); err != nil {
		return err
	}
	st.Close()
	b.costStatsOff(cs)
	if storeBench {
		b.progress("running bench/store")
		b.storeCommand = "go run ./bench/store"
		out, err := exec.Command("go", "run", "./bench/store").Output()
		if err != nil {
			return fmt.Errorf("bench/store: %w", err)
		}
		b.storeOut = string(out)
	}
	b.took, b.loadAfter = time.Since(b.began), benchutil.Loadavg()
	text := b.markdown(fp, cs)
	fmt.Print(text)
	if write {
		path := filepath.Join(b.root, "BENCHMARKS.md")
		if err := benchutil.WriteSection(path, "agent", text); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "bench/agent: wrote %s\n", path)
		return nil
	}
	return nil
}
