package main

import (
	"fmt"
	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/agent"
)

// markdown renders the section: what is measured, the tables, the notes.
func (b *bench) markdown(fp *footprint, cs *costs) string {
	var w strings.Builder
	w.WriteString("## sonded, the analytics agent (`go run ./bench/agent`)\n\n")
	fmt.Fprintf(&w, `Written by bench/agent (part of `+"`make bench`"+`; as root, after `+"`make build`"+`). One run measures
bin/sonded started on a temporary `+"`--state-dir`"+`, the same D run by `+"`sonde -n`"+`, the hand-written floor and the
store. The machine has %d CPUs shared with other work: every number is a median over repeats (the spread is
in the notes), and differences of a few ns per event are noise.

- **Footprint**: the agent (`+"`--budget %g`"+`: %s) with its default datasets (created archived on a
  new state directory), idle
  for %s, then for %s while bench/loop calls getppid(2) back to back on one CPU (a syscall-heavy
  load; every call is an event of the default `+"`syscall.ops`"+`), in turn, %d times each. CPU is
  utime+stime of every thread from /proc/PID/stat (in 10 ms ticks) over the period; RSS is VmRSS of
  /proc/PID/status at the period's end, and VmHWM at the end of all. The agent's BPF programs run in
  the threads that make the system calls, not in the agent: their run time (the kernel's BPF
  run-time statistics, BPF_ENABLE_STATS, which the agent holds on while it runs) is given apart.
- **BPF cost per event** of the dataset `+"`%s`"+`: its D as the API's `+"`program`"+` field shows it, run
  by the agent (resumed through the API), by `+"`sonde %s -n`"+` (the agent's aggregation size), and by
  `+"`bench/floor -mode %s`"+` (a per-CPU hash keyed by the 16-byte comm from bpf_get_current_comm,
  incremented in place, updated only on a miss: the least a tracer can do), taking turns %d times (each time in another order).
  Each start runs the getppid loop (%d calls, pinned to CPU %d) %d times untraced, then attaches and
  runs it %d times traced; %d untraced runs follow the last. Two numbers per tool: the *BPF run
  time per event* (the programs' run_time_ns over run_cnt across the traced runs), and the *overhead
  per call*, benchutil.Median(traced) − benchutil.Median(untraced), as bench/run measures it. Every other dataset of the
  agent is suspended meanwhile, and the run-time statistics are on for all three tools (they cost
  each event some ns themselves, alike). The programs' tags (the kernel's hash of the instructions
  as loaded, map references left out) tell whether the agent and `+"`sonde -n`"+` load the same code.
- **Without the statistics**: once the agent has exited and the harness has let go of the run-time
  statistics, sonde -n is measured the same way again (its column "statistics off"): the
  difference is what the statistics the agent holds on cost every BPF program on the host (measured
  after the others, not in turn with them).
- **Store**: bench/store as it is (its own section above explains it), run here so that all of
  issue 11's numbers come from one run.

`, runtime.NumCPU(), b.budget, budgetText(b.budget), b.period, b.period, b.repeats, costSpec, cs.options, floorMode, b.starts, b.calls, b.cpu,
		b.reps, b.reps, b.reps)
	fmt.Fprintf(&w, "Run of %s UTC; it took %s; load average (1 min) %.2f before, %.2f after.\n\n",
		b.began.UTC().Format("2006-01-02 15:04"), b.took.Round(time.Second), b.loadBefore, b.loadAfter)
	b.footprintTable(&w, fp)
	b.costTable(&w, cs)
	if b.storeOut != "" {
		fmt.Fprintf(&w, "### Store (`%s`, in the same run)\n\n```\n%s```\n\n", b.storeCommand, b.storeOut)
	}
	return w.String()
}

func (b *bench) footprintTable(w *strings.Builder, fp *footprint) {
	var names []string
	for _, d := range fp.datasets {
		kind := "static"
		if d.Program != "" {
			kind = "D"
		}
		names = append(names, fmt.Sprintf("`%s` (%s)", d.Name, kind))
	}
	fmt.Fprintf(w, "### Footprint: the default datasets, idle and under a getppid loop\n\n")
	fmt.Fprintf(w, "Datasets: %s.\n\n", strings.Join(names, ", "))
	w.WriteString("| period | agent CPU (% of one CPU) | agent RSS (MiB) | BPF run time in the traced threads (% of one CPU) | BPF events/s | getppid calls/s |\n")
	w.WriteString("|---|--:|--:|--:|--:|--:|\n")
	for _, row := range []struct {
		what string
		ps   []phase
	}{{"idle", fp.idle}, {"getppid loop", fp.load}} {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", row.what,
			benchutil.Num(benchutil.Median(each(row.ps, func(p phase) float64 { return 100 * p.cpuShare() }))),
			benchutil.Num(benchutil.Median(each(row.ps, func(p phase) float64 { return p.mem.rss }))),
			benchutil.Num(benchutil.Median(each(row.ps, func(p phase) float64 { return 100 * p.bpfShare() }))),
			benchutil.Num(benchutil.Median(each(row.ps, phase.eventRate))),
			benchutil.Num(benchutil.Median(each(row.ps, func(p phase) float64 { return float64(p.calls) / p.wall.Seconds() }))))
	}
	if share := benchutil.Median(each(fp.load, phase.bpfShare)); share > agent.DefaultBudget {
		fmt.Fprintf(w, "\nUnder the loop the default datasets' BPF programs took %s%% of a CPU, over sonded's default budget "+
			"(`--budget %g`): run with it, the agent auto-suspends `syscall.ops` a few seconds into such a load "+
			"(and records it as an event).\n", benchutil.Num(100*share), agent.DefaultBudget)
	}
	fmt.Fprintf(w, "\nPeak RSS (VmHWM) %s MiB. RSS once the API first answered %s MiB (anonymous %s, file %s: mostly the "+
		"binary's pages), at the end %s MiB (anonymous %s, file %s).\n\n",
		benchutil.Num(fp.end.hwm), benchutil.Num(fp.started.rss), benchutil.Num(fp.started.anon), benchutil.Num(fp.started.file), benchutil.Num(fp.end.rss), benchutil.Num(fp.end.anon), benchutil.Num(fp.end.file))
	w.WriteString("Notes:\n\n")
	for _, row := range []struct {
		what string
		ps   []phase
	}{{"idle", fp.idle}, {"getppid loop", fp.load}} {
		fmt.Fprintf(w, "- %s: agent CPU %% %s, RSS MiB %s (anonymous %s), BPF %% of a CPU %s, BPF ns per event %s (median, min–max of %d periods)\n",
			row.what,
			spread(each(row.ps, func(p phase) float64 { return 100 * p.cpuShare() })),
			spread(each(row.ps, func(p phase) float64 { return p.mem.rss })),
			spread(each(row.ps, func(p phase) float64 { return p.mem.anon })),
			spread(each(row.ps, func(p phase) float64 { return 100 * p.bpfShare() })),
			spread(each(row.ps, func(p phase) float64 {
				if p.events == 0 {
					return 0
				}
				return float64(p.bpfNs) / float64(p.events)
			})), len(row.ps))
	}
	for _, e := range b.events {
		if !routine[e.Kind] {
			fmt.Fprintf(w, "- the agent's event: %s %s: %s\n", e.Kind, e.Dataset, e.Message)
		}
	}
	w.WriteString("\n")
}

// budgetText says what sonded's --budget value means.
func budgetText(budget float64) string {
	if budget < 0 {
		return "no budget, so that no dataset is auto-suspended while it is measured"
	}
	return fmt.Sprintf("datasets auto-suspended past %g%% of a CPU", 100*budget)
}

func (b *bench) costTable(w *strings.Builder, cs *costs) {
	fmt.Fprintf(w, "### BPF cost per event of `%s`: the agent, `sonde -n`, the floor\n\n", costSpec)
	fmt.Fprintf(w, "The dataset's program (the API's `program` field), run by the agent and by `sonde %s -n`:\n\n```d\n%s```\n\n",
		cs.options, cs.program)
	head := "| ns per event | " + strings.Join(costColumns, " | ") + " | sonde -n/floor | sonded/floor | sonded/sonde -n |\n"
	w.WriteString(head)
	w.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|\n")
	rows := []struct {
		what string
		f    func(r *costResult) (float64, bool)
	}{
		{"BPF run time per event (run-time statistics)", func(r *costResult) (float64, bool) { return benchutil.Median(r.bpfNs), len(r.bpfNs) > 0 }},
		{"overhead per getppid call: benchutil.Median(traced) − benchutil.Median(untraced)", (*costResult).overhead},
		{"overhead per getppid call: fastest traced − fastest untraced", (*costResult).fastest},
		{"the API's `ns_per_event` (its last seconds)", func(r *costResult) (float64, bool) { return benchutil.Median(r.apiNs), len(r.apiNs) > 0 }},
	}
	for _, row := range rows {
		v := map[string]float64{}
		cells := []string{row.what}
		for _, t := range costColumns {
			r := cs.results[t]
			x, ok := row.f(r)
			switch {
			case t == toolStatsOff && r.statsOn > 0:
				cells = append(cells, "not off")
			case ok:
				v[t] = x
				cells = append(cells, benchutil.Num(x))
			case r.failed != "":
				cells = append(cells, "failed")
			default:
				cells = append(cells, "–")
			}
		}
		cells = append(cells, ratio(v, toolSonde, toolFloor), ratio(v, toolSonded, toolFloor), ratio(v, toolSonded, toolSonde))
		w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	w.WriteString("\nNotes:\n\n")
	var untraced []float64
	for _, t := range costColumns {
		untraced = append(untraced, cs.results[t].untraced...)
	}
	if len(untraced) > 0 && benchutil.Median(untraced) > 1.5*slices.Min(untraced) {
		fmt.Fprintf(w, "- the machine was busy during this run: an untraced getppid call took %s ns at the median and %s at the "+
			"fastest, so the overhead rows (the loop's) are mostly other work's noise; the run-time statistics rows are not "+
			"disturbed by it (they time the programs alone)\n", benchutil.Num(benchutil.Median(untraced)), benchutil.Num(slices.Min(untraced)))
	}
	ta, tb := cs.results[toolSonded].tags, cs.results[toolSonde].tags
	switch {
	case len(ta) == 0 || len(tb) == 0:
		w.WriteString("- the programs' tags could not be compared (a tool failed)\n")
	case slices.Equal(sorted(ta), sorted(tb)):
		fmt.Fprintf(w, "- the agent and `sonde -n` load the same code: tags %s\n", strings.Join(ta, ", "))
	default:
		fmt.Fprintf(w, "- the agent and `sonde -n` load different code, as they should: the agent's is sonde -n's plus the "+
			"choice of its per-second generation (three instructions) and generation 1's copy of the aggregation's lookups "+
			"(docs/analytics.md; TestGenerationsSameCode checks that nothing else differs): "+
			"tags %s (agent) and %s (sonde -n)\n", strings.Join(ta, ", "), strings.Join(tb, ", "))
	}
	b.statsNote(w, cs)
	for _, t := range costColumns {
		r := cs.results[t]
		if r.failed != "" {
			fmt.Fprintf(w, "- %s: failed: %s\n", t, strings.TrimSpace(r.failed))
		}
		if r.identity != "" {
			fmt.Fprintf(w, "- %s: %s\n", t, r.identity)
		}
		if len(r.bpfNs) > 0 {
			fmt.Fprintf(w, "- %s: BPF ns per event %s, program runs per getppid call %s (median, min–max of %d starts)\n",
				t, spread(r.bpfNs), spread(r.runsPerCall), len(r.bpfNs))
		}
		if len(r.traced) > 0 && len(r.untraced) > 0 {
			fmt.Fprintf(w, "- %s: ns per getppid call traced %s, untraced %s (median, min–max)\n", t, spread(r.traced), spread(r.untraced))
		}
		if len(r.apiNs) > 0 {
			fmt.Fprintf(w, "- %s: the API's ns_per_event %s (median, min–max of %d starts; averaged by the agent over its last 5 s, which hold the loop's events and the machine's others)\n",
				t, spread(r.apiNs), len(r.apiNs))
		}
	}
	w.WriteString("\n")
}

// statsNote says what the run-time statistics cost each event: sonde -n
// with them on and off.
func (b *bench) statsNote(w *strings.Builder, cs *costs) {
	on, off := cs.results[toolSonde], cs.results[toolStatsOff]
	x, okOn := on.fastest()
	y, okOff := off.fastest()
	switch {
	case !okOn || !okOff:
	case off.statsOn > 0:
		fmt.Fprintf(w, "- statistics off: not measured; the kernel counted the runs of sonde -n's program in %d of its %d starts "+
			"after the agent had exited and the harness had let go of the statistics: other work on the machine (another "+
			"sonded: other engineers' tests) held them on\n", off.statsOn, b.starts)
	default:
		fmt.Fprintf(w, "- the kernel's BPF run-time statistics, which the agent holds on while it runs, cost each event of every "+
			"BPF program on the host (not only the agent's) %s ns here: `sonde -n` with them on, %s, and off, %s "+
			"(fastest runs; median runs: %s and %s)\n",
			benchutil.Num(x-y), benchutil.Num(x), benchutil.Num(y), numOK(on.overhead()), numOK(off.overhead()))
	}
}

func numOK(x float64, ok bool) string {
	if !ok {
		return "–"
	}
	return benchutil.Num(x)
}

func sorted(xs []string) []string {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

func each(ps []phase, f func(phase) float64) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = f(p)
	}
	return out
}

func spread(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
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

// routine are the agent's events of the datasets' life cycle, which the
// harness itself causes; the others (errors, drops, auto-suspensions) are
// noted.
var routine = map[string]bool{"created": true, "suspended": true, "resumed": true, "archived": true, "opened": true, "open": true}
