package main

import (
	"bufio"
	"fmt"
	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

type report struct {
	cfg     *Config
	tools   []string                      // the columns, in order
	base    *base                         // the sonde built from a git ref (-base), or nil
	results map[string]map[string]*Result // scenario -> tool -> result
	missing map[string]string
	calls   int
	reps    int
	started time.Time
	took    time.Duration

	loadBefore, loadAfter float64 // one-minute load averages
}

const notMeasured = "not yet measured"

// metric is one table: a number per (scenario, tool).
type metric struct {
	title string
	unit  string
	scope string // "": every scenario; "overhead", "profile": only those
	value func(r *Result) (float64, bool)
}

// medianOf is a metric's value: the median of one number per start.
func medianOf(xs func(r *Result) []float64) func(r *Result) (float64, bool) {
	return func(r *Result) (float64, bool) { return benchutil.Median(xs(r)), len(xs(r)) > 0 }
}

func (rep *report) metrics() []metric {
	return []metric{
		{"Per-event overhead", "ns added to each getppid call", "overhead", (*Result).Overhead},
		{"Profile: BPF run time per sample", "ns in the kernel per profile-997 event, BPF_ENABLE_STATS", "profile",
			medianOf(func(r *Result) []float64 { return r.SampleNs })},
		{"Profile: tracer CPU while sampling", "ms of user+system CPU while the workload ran", "profile",
			medianOf(func(r *Result) []float64 { return r.CPURun })},
		{"Profile: tracer CPU at exit", "ms of user+system CPU from SIGINT until exited: read, symbolise, print", "profile",
			medianOf(func(r *Result) []float64 { return r.CPUExit })},
		{"Profile: tracer CPU in all", "ms of user+system CPU from exec to exit, rusage", "profile",
			medianOf(func(r *Result) []float64 { return r.CPUTotal })},
		{"Start-up", "ms from exec until attached", "", medianOf(func(r *Result) []float64 { return r.Attach })},
		{"Exit", "ms from SIGINT until exited: detach, final printing", "", medianOf(func(r *Result) []float64 { return r.Exit })},
		{"Peak RSS", "MiB", "", medianOf(func(r *Result) []float64 { return r.RSS })},
	}
}

// markdown renders the tables and notes.
func (rep *report) markdown() string {
	var b strings.Builder
	for _, m := range rep.metrics() {
		rep.table(&b, m)
	}
	rep.notes(&b)
	return b.String()
}

func (rep *report) scenarios(m metric) []*Scenario {
	var out []*Scenario
	for _, s := range rep.cfg.Scenarios {
		if rep.results[s.ID] == nil {
			continue
		}
		if m.scope == "" || m.scope == "overhead" && s.Overhead || m.scope == "profile" && s.Profile {
			out = append(out, s)
		}
	}
	return out
}

func (rep *report) table(b *strings.Builder, m metric) {
	ss := rep.scenarios(m)
	if len(ss) == 0 {
		return
	}
	fmt.Fprintf(b, "### %s (%s)\n\n", m.title, m.unit)
	head, align := []string{"program"}, []string{"---"}
	for _, tool := range rep.tools {
		head, align = append(head, tool), append(align, "--:")
	}
	for _, q := range rep.ratios() {
		head, align = append(head, q[0]+"/"+q[1]), append(align, "--:")
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	b.WriteString("|" + strings.Join(align, "|") + "|\n")
	for _, s := range ss {
		v := map[string]float64{}
		cells := []string{s.Title}
		for _, tool := range rep.tools {
			r := rep.results[s.ID][tool]
			x, ok := m.value(r)
			switch {
			case ok:
				v[tool] = x
				cells = append(cells, benchutil.Num(x))
			case r.Skipped != "" && tool == "sonde":
				cells = append(cells, notMeasured)
			case r.Skipped != "":
				cells = append(cells, "skipped")
			case r.Failed != "":
				cells = append(cells, "failed")
			default:
				cells = append(cells, "–")
			}
		}
		for _, q := range rep.ratios() {
			cells = append(cells, ratio(v, q[0], q[1]))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// ratios are the ratio columns of the tables: numerator and denominator
// tools; with a base, sonde over it last.
func (rep *report) ratios() [][2]string {
	qs := [][2]string{{"bpftrace", "floor"}, {"sonde", "floor"}, {"sonde", "bpftrace"}}
	if rep.base != nil {
		qs = append(qs, [2]string{"sonde", rep.base.tool()})
	}
	return qs
}

func spread(xs []float64) string {
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%s (%s–%s)", benchutil.Num(benchutil.Median(xs)), benchutil.Num(lo), benchutil.Num(hi))
}

func ratio(v map[string]float64, a, b string) string {
	x, okA := v[a]
	y, okB := v[b]
	if !okA || !okB || y <= 0 || x < 0 {
		return "–"
	}
	return benchutil.Num(x/y) + "×"
}

func (rep *report) notes(b *strings.Builder) {
	var notes []string
	var base []float64
	for _, s := range rep.cfg.Scenarios {
		for _, tool := range rep.tools {
			r := rep.results[s.ID][tool]
			if r == nil {
				continue
			}
			base = append(base, r.Untraced...)
			if r.Failed != "" {
				notes = append(notes, fmt.Sprintf("%s, %s: failed: %s", tool, s.Title, strings.TrimSpace(r.Failed)))
			}
			if t := rep.cfg.run(tool, s.ID); t != nil && t.count != nil && r.WantCounts > 0 && !r.NoCount {
				notes = append(notes, fmt.Sprintf("%s, %s: counted %d getppid entries for the %d calls made (other processes add a few)",
					tool, s.Title, r.Counted, r.WantCounts))
			}
			if t := rep.cfg.run(tool, s.ID); t != nil && t.Note != "" && r.Skipped == "" {
				notes = append(notes, fmt.Sprintf("%s, %s: %s", tool, s.Title, t.Note))
			}
			if r.Resent > 0 {
				notes = append(notes, fmt.Sprintf("%s, %s: lost SIGINT %d times (it sat in epoll_wait); exit is timed from the SIGINT it acted on",
					tool, s.Title, r.Resent))
			}
			if len(r.Traced) > 0 {
				notes = append(notes, fmt.Sprintf("%s, %s: ns per call traced %s, untraced %s (median, min–max)",
					tool, s.Title, spread(r.Traced), spread(r.Untraced)))
			}
			notes = append(notes, profileNotes(s, tool, r)...)
		}
	}
	for _, tool := range rep.tools {
		if why := rep.missing[tool]; why != "" {
			notes = append([]string{fmt.Sprintf("%s: %s; its columns are %q", tool, why,
				map[bool]string{true: notMeasured, false: "skipped"}[tool == "sonde"])}, notes...)
		}
	}
	if len(base) > 0 {
		notes = append([]string{fmt.Sprintf("untraced getppid: %s ns per call (median of %d runs of %d calls)",
			benchutil.Num(benchutil.Median(base)), len(base), rep.calls)}, notes...)
	}
	b.WriteString("Notes:\n\n")
	for _, n := range notes {
		b.WriteString("- " + strings.ReplaceAll(n, "\n", " ") + "\n")
	}
	fmt.Fprintf(b, "- load average (1 min) %.2f before the run, %.2f after", rep.loadBefore, rep.loadAfter)
	if rep.loadBefore > 0.5 { // after includes the loop's own load
		b.WriteString(": other work was running, and the overhead numbers are noisier for it")
	}
	fmt.Fprintf(b, "\n- the whole run took %s\n\n", rep.took.Round(time.Second))
}

// profileNotes says what else a profile scenario measured for a tool.
func profileNotes(s *Scenario, tool string, r *Result) []string {
	if !s.Profile || len(r.SampleNs) == 0 {
		return nil
	}
	cpus := float64(runtime.NumCPU())
	rate := benchutil.Median(r.Rate)
	notes := []string{
		fmt.Sprintf("%s, %s: %s samples/s on %d CPUs (%s per CPU) from %d perf-event BPF program(s); BPF ns per sample %s; "+
			"that is %.2f%% of each CPU (samples/s × ns ÷ CPUs)",
			tool, s.Title, benchutil.Num(rate), runtime.NumCPU(), benchutil.Num(rate/cpus), r.Programs, spread(r.SampleNs),
			rate*benchutil.Median(r.SampleNs)/1e9/cpus*100),
		fmt.Sprintf("%s, %s: tracer CPU ms until attached %s, while sampling %s, at exit %s, in all %s (median, min–max)",
			tool, s.Title, spread(r.CPUStart), spread(r.CPURun), spread(r.CPUExit), spread(r.CPUTotal)),
	}
	printed := fmt.Sprintf("%s lines of output", benchutil.Num(benchutil.Median(r.OutputLines)))
	if len(r.Stacks) > 0 && len(r.Stacks) == len(r.CPUExit) {
		var per []float64
		for i, n := range r.Stacks {
			per = append(per, r.CPUExit[i]*1000/max(n, 1))
		}
		printed = fmt.Sprintf("%s stacks printed (%s lines of output); CPU at exit per stack printed %s µs",
			spread(r.Stacks), benchutil.Num(benchutil.Median(r.OutputLines)), spread(per))
	}
	notes[1] += "; " + printed
	if r.Unsymbolised > 0 {
		notes = append(notes, fmt.Sprintf("%s, %s: %d of %d runs printed no %s: the stacks were not symbolised",
			tool, s.Title, r.Unsymbolised, len(r.CPUExit), s.Symbol))
	}
	return notes
}

// document is BENCHMARKS.md: methodology, machine, and the tables.
func (rep *report) document(machine, tables string) string {
	var b strings.Builder
	b.WriteString(`# Benchmarks

This file is written by the benchmark harness; do not edit the numbers by
hand, run it again (as root, from the repository):

    go run ./bench/run -write

Benchmarks are not tests: they print numbers and ratios side by side, and
nothing passes or fails on them.

## What is measured

` + rep.count() + ` tools run the same programs (the command lines are data, in
` + "`bench/tools.json`" + `):

- **floor**: ` + "`bench/floor`" + `, a few BPF instructions written by hand with
  cilium/ebpf's ` + "`asm`" + ` package, attached to the raw tracepoints
  ` + "`raw_syscalls:sys_enter`" + ` (and ` + "`sys_exit`" + `), counting into per-CPU maps:
  a per-CPU array for ` + "`@ = count()`" + ` (filtered to getppid's number in BPF);
  a per-CPU hash keyed by pid, incremented in place through the looked-up
  pointer and updated only on a miss, for ` + "`@[pid] = count()`" + `; a per-CPU
  array indexed by syscall number, on sys_enter and sys_exit, for the program
  over every syscall. For the profile program (` + "`bench/floor/ustack.go`" + `), a
  perf-event program on a CPU-clock event per CPU every 1/997 s, that
  counts (pid, ` + "`bpf_get_stackid(BPF_F_USER_STACK)`" + `) in a preallocated per-CPU
  hash, and at exit symbolises each stack as simply as it can: the
  process's ` + "`/proc/PID/maps`" + ` and each object's ` + "`.symtab`" + ` and ` + "`.dynsym`" + `.
  It is the least a tracer can do for these programs.
- **bpftrace**, as installed (its one-liners use ` + "`tracepoint:`" + ` probes; this
  kernel has no kprobes and no fentry, and bpftrace does not need them here).
- **sonde**: ` + "`bin/sonde`" + `, once it exists.
` + rep.describeBase() + `
The programs:

- ` + "`@ = count()`" + ` on getppid entry: sonde ` + "`syscall::getppid:entry`" + `, bpftrace
  ` + "`tracepoint:syscalls:sys_enter_getppid`" + `.
- ` + "`@[pid] = count()`" + ` on every syscall entry: sonde ` + "`syscall:::entry`" + `, bpftrace
  ` + "`tracepoint:raw_syscalls:sys_enter`" + `.
- ` + "`@[probefunc] = count()`" + ` on every syscall entry and return: sonde
  ` + "`syscall:::entry,syscall:::return`" + `, bpftrace
  ` + "`tracepoint:syscalls:sys_enter_*,tracepoint:syscalls:sys_exit_*`" + ` with ` + "`@[probe]`" + `.
- ` + "`@[ustack()] = count()`" + ` at profile-997: sonde
  ` + "`profile-997 { @[ustack()] = count(); }`" + `, bpftrace
  ` + "`profile:hz:997 { @[ustack] = count(); }`" + `; no predicate, every CPU is
  sampled, and the tool prints every stack symbolised at exit.

bpftrace 0.17 runs all of these here on tracepoints; it needs no kprobes
or fentry for them (nor for BEGIN, a uprobe on itself). It warns
"couldn't set RLIMIT_MEMLOCK" (the container lacks CAP_SYS_RESOURCE; the
kernel charges BPF memory to the memory cgroup, so it does not matter). The
every-syscall program needs BPFTRACE_MAX_PROBES and BPFTRACE_MAX_BPF_PROGS
raised above its 721 probes, which it attaches as 721 perf-event
tracepoints, one program each.

Each tool program also has ` + "`BEGIN { printf(\"ready\\n\"); }`" + ` (floor prints
` + "`attached`" + `), which both tools run only after every probe is attached.

The numbers:

- **Per-event overhead**: ` + "`bench/loop`" + ` (C, built with gcc -O2) calls
  getppid() N times in a tight loop, pinned to one CPU, and prints the
  elapsed ns per call (CLOCK_MONOTONIC around the loop). The tool is
  started S times; each time the loop runs R times just before the tool
  starts (untraced) and R times while it is attached (traced), and R more
  untraced runs follow the last exit. The overhead is median(traced) −
  median(untraced). Where the tool's output gives the
  count, it is checked against the calls made (see the notes). The machine
  is shared with other work, which shows as noise of some tens of ns; the
  ratios between tools measured in the same run are steadier than the
  absolute numbers.
- **Start-up**: ms from just before exec until the tool's ready line is
  read from its output.
- **Exit**: ms from SIGINT until the process has exited: detaching, and
  reading and printing the aggregation. SIGINT is sent 250 ms after the
  ready line or later: bpftrace 0.17 loses a SIGINT that arrives while it
  handles its own output (it goes back to epoll_wait with no timeout); when
  it is seen waiting there after a SIGINT, the signal is sent again and the
  exit is timed from then (the notes say when). Detaching a perf-event tracepoint
  waits for an RCU grace period in the kernel (tens of ms each); a raw
  tracepoint link goes in about a millisecond.
- **Peak RSS**: ru_maxrss of the tool process from wait4.
- **Profile** (` + "`bench/run/profile.go`" + `): once the tool is attached,
  ` + "`bench/hot`" + ` (C, gcc -O1 -fno-omit-frame-pointer: a call tree of five
  functions under main, ` + "`bench_parse`" + ` and ` + "`bench_render`" + ` calling the leaf
  ` + "`bench_mix`" + ` directly and through ` + "`bench_hash_block`" + ` and ` + "`bench_compress`" + `)
  spins one process per CPU for {seconds}, and is left running until the tool
  has exited: bpftrace reads ` + "`/proc/PID/maps`" + ` to symbolise only when it
  prints. Two costs are measured:
  - *in the kernel*, the BPF run time per sample. BPF_ENABLE_STATS (the
    bpf(2) command behind ` + "`sysctl kernel.bpf_stats_enabled=1`" + `, held only
    for the {seconds}) has the kernel time every run of every BPF program. The
    tool's perf-event programs are found by the ` + "`prog_id`" + ` of its
    bpf-prog and bpf_link fds in ` + "`/proc/PID/fdinfo`" + `, and their run_time_ns
    and run_cnt read when the workload starts and {seconds} later: the
    difference in time over the difference in runs. That is the program
    and the helpers it calls (the user stack walk of
    ` + "`bpf_get_stack`" + `/` + "`bpf_get_stackid`" + ` is most of it), not the timer
    interrupt and perf-event overflow that fire it, which are the same
    for every tool. The workload's own slowdown is not used: a few µs
    997 times a second is a few tenths of a percent of a CPU, below the
    noise of a shared machine; the notes give that share, computed.
  - *in user space*, the tool's CPU time, user and system, all threads:
    its process CPU clock (` + "`clock_getcpuclockid`" + `) when it is attached,
    when the workload starts, {seconds} later, and just before SIGINT; its
    rusage from wait4 when it has exited. "While sampling" is the {seconds};
    "at exit" is from SIGINT to exit: reading the maps, symbolising,
    printing; "in all" is from exec to exit. sonde reads the keys of
    its stack aggregations ten times a second while it runs, to keep the
    address space of each process in them while it lives (so that the
    stacks of a process that has exited still symbolise): that is its CPU
    while sampling, and why it has less left to do at exit.

  The output is checked to name ` + "`bench_hash_block`" + ` (the notes say when
  it does not). Every CPU is sampled, so what else runs on the machine
  adds stacks to print: the notes give the stacks each tool printed, and
  its CPU at exit per stack.

Start-up, exit, RSS and the profile numbers are medians over the starts
(S = ` + rep.startCounts() + `, except where the notes say
otherwise). The starts of ` + rep.turns() + ` take turns between the
tools (` + strings.Join(rep.tools, ", ") + `, ` + rep.tools[0] + ` ...), so that other work on the
machine falls on them alike.

Ratios are tool/floor and tool/bpftrace of the numbers in the same row` + rep.baseRatio() + `.

## Machine

`)
	b.WriteString(machine)
	fmt.Fprintf(&b, "\nRun of %s: N = %d getppid calls per loop run, R = %d runs per start.\n\n## Results\n\n",
		rep.started.UTC().Format("2006-01-02 15:04 MST"), rep.calls, rep.reps)
	b.WriteString(tables)
	secs := "the scenario's seconds"
	for _, s := range rep.cfg.Scenarios {
		if s.Profile {
			secs = strconv.FormatFloat(s.Seconds, 'g', -1, 64) + " s"
		}
	}
	return strings.ReplaceAll(b.String(), "{seconds}", secs)
}

// count is how many tools the report compares, in words.
func (rep *report) count() string {
	if w := []string{"No", "One", "Two", "Three", "Four", "Five"}; len(rep.tools) < len(w) {
		return w[len(rep.tools)]
	}
	return strconv.Itoa(len(rep.tools))
}

// turns says which programs' starts take turns between the tools: the
// profile program's, and every program's when there is a base (main.go).
func (rep *report) turns() string {
	if rep.base == nil {
		return "the profile program"
	}
	return "every program"
}

// describeBase is the base's entry in the list of tools, if there is one.
func (rep *report) describeBase() string {
	if rep.base == nil {
		return ""
	}
	return rep.base.describe()
}

// baseRatio names the base's ratio column, if there is one.
func (rep *report) baseRatio() string {
	if rep.base == nil {
		return ""
	}
	return ", and\nsonde/" + rep.base.tool() + " is bin/sonde over the sonde of " + rep.base.ref
}

// machine describes the machine and the tools' versions (and the base
// sonde's, if there is one).
func machine(paths map[string]string, bs *base) string {
	var b strings.Builder
	if out, err := exec.Command("uname", "-r").Output(); err == nil {
		fmt.Fprintf(&b, "- kernel: Linux %s", strings.TrimSpace(string(out)))
		if v, err := os.ReadFile("/sys/kernel/btf/vmlinux"); err == nil && len(v) > 0 {
			b.WriteString(" (BTF, tracepoints, raw tracepoints, uprobes, perf events; no kprobes, no fentry)")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "- CPU: %s, %d cores (%s)\n", cpuModel(), runtime.NumCPU(), runtime.GOARCH)
	if mem := memTotal(); mem != "" {
		fmt.Fprintf(&b, "- memory: %s\n", mem)
	}
	fmt.Fprintf(&b, "- %s\n", runtime.Version())
	versions := []string{"bpftrace", "sonde"}
	if bs != nil {
		versions = append(versions, bs.tool())
	}
	for _, tool := range versions {
		if p, ok := paths[tool]; ok {
			flag := "-V"
			if tool == "bpftrace" {
				flag = "--version"
			}
			out, _ := exec.Command(p, flag).CombinedOutput()
			v := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
			fmt.Fprintf(&b, "- %s: %s\n", tool, v)
		}
	}
	if out, err := exec.Command("gcc", "-dumpfullversion").Output(); err == nil {
		fmt.Fprintf(&b, "- gcc %s\n", strings.TrimSpace(string(out)))
	}
	return b.String()
}

func cpuModel() string {
	return procField("/proc/cpuinfo", "model name")
}

func memTotal() string {
	return procField("/proc/meminfo", "MemTotal")
}

func procField(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// startCounts says how many starts each program had: "3, and 5 for the
// profile program".
func (rep *report) startCounts() string {
	plain, prof := 0, 0
	for _, s := range rep.cfg.Scenarios {
		if s.Profile {
			prof = s.Starts
		} else {
			plain = s.Starts
		}
	}
	if prof == 0 || prof == plain {
		return strconv.Itoa(plain)
	}
	return strconv.Itoa(plain) + ", and " + strconv.Itoa(prof) + " for the profile program"
}
