package main

// The profile scenario: profile-997 { @[ustack()] = count(); } while
// bench/hot spins on every CPU. Two costs are measured:
//
//   - in the kernel, the BPF run time per event: BPF_ENABLE_STATS (what
//     sysctl kernel.bpf_stats_enabled=1 turns on, here only for as long as
//     the harness holds the fd) makes the kernel time every run of every
//     BPF program; the tool's perf-event programs are found through the
//     prog_id of its bpf-prog and bpf_link fds in /proc/PID/fdinfo, and
//     their run_time_ns and run_cnt are read when the workload starts and
//     again Seconds later. The difference, divided, is ns per sample: the
//     program and the helpers it calls (bpf_get_stackid walks the user
//     stack), not the perf interrupt that fires it, which is the same for
//     every tool.
//   - in user space, the tool's own CPU time (user + system, every thread):
//     the process CPU clock of the tool (clock_gettime on the clock of
//     clock_getcpuclockid(pid)) when it is attached, when the workload
//     starts and just before SIGINT, and its rusage from wait4 at the end.
//     What it spends after SIGINT is reading the maps, symbolising and
//     printing.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// profiling is one start of a tool under the workload.
type profiling struct {
	b        *bench
	s        *Scenario
	r        *Result
	pid      int
	workload *exec.Cmd
	progs    []*ebpf.Program
	cpuStop  time.Duration // tool CPU when SIGINT is sent
}

// profile runs the workload on every CPU for s.Seconds under the tool and
// measures its BPF run time and CPU time meanwhile. The workload is left
// running: the tools symbolise a process's stacks from /proc/PID/maps at
// exit, so it must still be there then; stop ends it.
func (b *bench) profile(p *proc, s *Scenario, r *Result) (*profiling, error) {
	pr := &profiling{b: b, s: s, r: r, pid: p.cmd.Process.Pid}
	cpuReady, err := processCPU(pr.pid)
	if err != nil {
		return nil, err
	}
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		return nil, fmt.Errorf("BPF_ENABLE_STATS: %w", err)
	}
	defer stats.Close()
	if pr.progs, err = perfPrograms(pr.pid); err != nil {
		return pr, err
	}
	if len(pr.progs) == 0 {
		return pr, fmt.Errorf("no perf-event BPF program found among the fds of pid %d", pr.pid)
	}
	r.Programs = len(pr.progs)

	// Safety net: the workload ends itself if the harness dies.
	limit := int(s.Seconds + 2*b.timeout.Seconds() + 60)
	pr.workload = exec.Command(b.hot, strconv.Itoa(runtime.NumCPU()), strconv.Itoa(limit))
	pr.workload.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := pr.workload.Start(); err != nil {
		return pr, fmt.Errorf("workload: %w", err)
	}
	workloads.add(pr.workload)

	cpu0, err1 := processCPU(pr.pid)
	runs0, ns0, err2 := runStats(pr.progs)
	t0 := time.Now()
	time.Sleep(time.Duration(s.Seconds * float64(time.Second)))
	cpu1, err3 := processCPU(pr.pid)
	runs1, ns1, err4 := runStats(pr.progs)
	t1 := time.Now()
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return pr, err
	}
	r.CPUStart = append(r.CPUStart, ms(cpuReady))
	r.CPURun = append(r.CPURun, ms(cpu1-cpu0))
	if runs1 > runs0 {
		r.SampleNs = append(r.SampleNs, float64(ns1-ns0)/float64(runs1-runs0))
		r.Rate = append(r.Rate, float64(runs1-runs0)/t1.Sub(t0).Seconds())
	}
	return pr, nil
}

// interrupting is called just before SIGINT.
func (pr *profiling) interrupting() {
	pr.cpuStop, _ = processCPU(pr.pid)
}

// exited is called once the tool has exited and its output is all read.
func (pr *profiling) exited(p *proc, t *ToolRun) {
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		pr.r.CPUTotal = append(pr.r.CPUTotal, ms(total))
		pr.r.CPUExit = append(pr.r.CPUExit, ms(total-pr.cpuStop))
	}
	p.mu.Lock()
	for !p.eof {
		p.cond.Wait()
	}
	found, stacks := false, 0
	for _, l := range p.lines {
		found = found || strings.Contains(l.text, pr.s.Symbol)
		if t.stacks != nil && t.stacks.MatchString(l.text) {
			stacks++
		}
	}
	pr.r.OutputLines = append(pr.r.OutputLines, float64(len(p.lines)))
	if t.stacks != nil {
		pr.r.Stacks = append(pr.r.Stacks, float64(stacks))
	}
	p.mu.Unlock()
	if !found {
		pr.r.Unsymbolised++
	}
}

// stop ends the workload and closes the programs' fds.
func (pr *profiling) stop() {
	for _, prog := range pr.progs {
		prog.Close()
	}
	if pr.workload != nil {
		syscall.Kill(-pr.workload.Process.Pid, syscall.SIGTERM)
		pr.workload.Wait()
		workloads.remove(pr.workload)
	}
}

// processCPU is the CPU time (user and system) pid's threads, live and
// exited, have used: its process CPU clock, MAKE_PROCESS_CPUCLOCK(pid,
// CPUCLOCK_SCHED) as clock_getcpuclockid(3) makes it.
func processCPU(pid int) (time.Duration, error) {
	const cpuclockSched = 2
	clock := int32(^uint32(pid)<<3) | cpuclockSched
	var ts unix.Timespec
	if err := unix.ClockGettime(clock, &ts); err != nil {
		return 0, fmt.Errorf("CPU clock of pid %d: %w", pid, err)
	}
	return time.Duration(ts.Nano()), nil
}

// perfPrograms opens the perf-event programs pid holds, found through the
// prog_id of its bpf-prog and bpf_link fds.
func perfPrograms(pid int) ([]*ebpf.Program, error) {
	dir := fmt.Sprintf("/proc/%d/fdinfo", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	seen := map[ebpf.ProgramID]bool{}
	var progs []*ebpf.Program
	for _, e := range ents {
		id, ok := fdinfoProgID(filepath.Join(dir, e.Name()))
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		prog, err := ebpf.NewProgramFromID(id)
		if err != nil {
			continue // unloaded since
		}
		if prog.Type() != ebpf.PerfEvent {
			prog.Close()
			continue
		}
		progs = append(progs, prog)
	}
	return progs, nil
}

func fdinfoProgID(name string) (ebpf.ProgramID, bool) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && k == "prog_id" {
			id, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			return ebpf.ProgramID(id), err == nil
		}
	}
	return 0, false
}

// runStats sums the run counts and run times of programs.
func runStats(progs []*ebpf.Program) (runs uint64, ns int64, err error) {
	for _, prog := range progs {
		st, err := prog.Stats()
		if err != nil {
			return 0, 0, err
		}
		runs += st.RunCount
		ns += st.Runtime.Nanoseconds()
	}
	return runs, ns, nil
}

// workloads are the workloads running, for killAll.
var workloads = &workloadSet{m: map[*exec.Cmd]bool{}}

type workloadSet struct {
	mu sync.Mutex
	m  map[*exec.Cmd]bool
}

func (w *workloadSet) add(c *exec.Cmd) {
	w.mu.Lock()
	w.m[c] = true
	w.mu.Unlock()
}

func (w *workloadSet) remove(c *exec.Cmd) {
	w.mu.Lock()
	delete(w.m, c)
	w.mu.Unlock()
}

func (w *workloadSet) kill() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for c := range w.m {
		syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
	}
}
