package main

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sonde-trace/sonde/internal/agent"
)

// The dataset whose BPF cost is measured, and the hand-written floor of
// its program (bench/floor).
const (
	costSpec  = "syscall.ops[execname]"
	floorMode = "hash-comm"
)

// The columns of the cost table, in the order they take turns.
const (
	toolFloor  = "floor"
	toolSonde  = "sonde -n"
	toolSonded = "sonded"
	// sonde -n again once the agent has exited and the harness has let
	// go of the run-time statistics: what they cost each event.
	toolStatsOff = "sonde -n, statistics off"
)

var costTools = []string{toolFloor, toolSonde, toolSonded}

// costColumns are the columns of the cost table.
var costColumns = []string{toolFloor, toolSonde, toolSonded, toolStatsOff}

// costResult is what was measured of one tool's program.
type costResult struct {
	untraced, traced []float64 // ns per getppid call, one per loop run
	bpfNs            []float64 // BPF run time per event over the traced runs, one per start
	runsPerCall      []float64 // program runs over the calls made, one per start
	apiNs            []float64 // sonded: the API's ns_per_event after the traced runs
	tags             []string  // the programs' tags (first start)
	identity         string    // the programs as the kernel has them (first start)
	statsOn          int       // starts during which the kernel had the run-time statistics on
	failed           string
}

// fastest is the overhead from the fastest runs: other work on the
// machine only ever adds time to a run, so the minima are its least
// disturbed estimate.
func (r *costResult) fastest() (float64, bool) {
	if len(r.traced) == 0 || len(r.untraced) == 0 {
		return 0, false
	}
	return slices.Min(r.traced) - slices.Min(r.untraced), true
}

func (r *costResult) overhead() (float64, bool) {
	if len(r.traced) == 0 || len(r.untraced) == 0 {
		return 0, false
	}
	return benchutil.Median(r.traced) - benchutil.Median(r.untraced), true
}

// costs is the cost part of the report.
type costs struct {
	program string                 // the dataset's D, from the API
	options string                 // what sonde -n is given besides it
	results map[string]*costResult // by tool
}

// attached is a tool whose program is attached: pid holds its programs,
// detach takes it off.
type attached struct {
	pid    int
	detach func() error
}

// cost measures the BPF cost per event of costSpec's program as the agent
// runs it, as sonde -n runs the same D, and the floor's: the tools take
// turns start by start, each start running the getppid loop untraced,
// then attached. Every other dataset of the agent is suspended meanwhile,
// and the kernel's BPF run-time statistics are on throughout (the agent
// holds them on while it runs), for every tool alike.
func (b *bench) cost(a *agentProc) (*costs, error) {
	ds, err := a.create(costSpec)
	if err != nil {
		return nil, err
	}
	all, err := a.datasets()
	if err != nil {
		return nil, err
	}
	for _, d := range all {
		if d.Program != "" && d.State != "suspended" {
			if err := a.suspend(d.Name, true); err != nil {
				return nil, err
			}
		}
	}
	c := &costs{program: ds.Program, options: fmt.Sprintf("-q -x aggsize=%d", aggEntries*64), results: map[string]*costResult{}}
	for _, t := range costColumns {
		c.results[t] = &costResult{}
	}
	attach := map[string]func() (*attached, error){
		toolFloor:  func() (*attached, error) { return b.startFloor() },
		toolSonde:  func() (*attached, error) { return b.startSonde(c) },
		toolSonded: func() (*attached, error) { return resume(a) },
	}
	for i := range b.starts {
		// Each start in another order (rotated), so that no tool always
		// follows the same one: the one before it ends while it starts
		// (its maps freed, its links detached).
		order := append(append([]string(nil), costTools[i%len(costTools):]...), costTools[:i%len(costTools)]...)
		for _, t := range order {
			r := c.results[t]
			if r.failed != "" {
				continue
			}
			b.progress("cost %s: start %d/%d", t, i+1, b.starts)
			if err := b.costStart(a, t, attach[t], r, i == 0); err != nil {
				r.failed = err.Error()
				b.progress("cost %s failed: %v", t, err)
			}
		}
	}
	for _, t := range costTools {
		if r := c.results[t]; r.failed == "" {
			if err := b.runLoops(&r.untraced); err != nil {
				r.failed = err.Error()
			}
		}
	}
	return c, nil
}

// aggEntries is the agent's bound on a dataset's aggregation: it gives
// sonde -n the agent's aggsize (as internal/agent's compile does).
const aggEntries = agent.DefaultAggEntries

// costStart is one start of a tool: untraced loop runs, then attached,
// traced loop runs with the programs' run-time statistics read around
// them.
func (b *bench) costStart(a *agentProc, tool string, attach func() (*attached, error), r *costResult, first bool) error {
	if err := b.runLoops(&r.untraced); err != nil {
		return err
	}
	at, err := attach()
	if err != nil {
		return err
	}
	pr, err := programsOf(at.pid)
	if err != nil {
		return errors.Join(err, at.detach())
	}
	defer pr.close()
	if first {
		r.tags, r.identity = pr.tags(), pr.identity()
	}
	runs0, ns0, err := pr.runStats()
	if err != nil {
		return errors.Join(err, at.detach())
	}
	if err := b.runLoops(&r.traced); err != nil {
		return errors.Join(err, at.detach())
	}
	runs1, ns1, err := pr.runStats()
	if err != nil {
		return errors.Join(err, at.detach())
	}
	if runs1 > runs0 {
		r.statsOn++ // the kernel counted the runs
	}
	if runs1 > runs0 {
		r.bpfNs = append(r.bpfNs, float64(ns1-ns0)/float64(runs1-runs0))
		r.runsPerCall = append(r.runsPerCall, float64(runs1-runs0)/float64(b.reps*b.calls))
	}
	if tool == toolSonded {
		// The agent averages its cost over its last seconds: wait for
		// two of its ticks to take in the loop's.
		time.Sleep(2200 * time.Millisecond)
		ds, err := a.get(costSpec)
		if err != nil {
			return errors.Join(err, at.detach())
		}
		r.apiNs = append(r.apiNs, ds.NsPerEvent)
	}
	return at.detach()
}

// costStatsOff measures sonde -n as cost does, once the agent has exited
// and the harness has closed its hold on the run-time statistics. Other
// work on the machine may hold them on (another sonded): the program's
// run counts tell (costResult.statsOn).
func (b *bench) costStatsOff(c *costs) {
	r := c.results[toolStatsOff]
	for i := range b.starts {
		b.progress("cost %s: start %d/%d", toolStatsOff, i+1, b.starts)
		if err := b.costStart(nil, toolStatsOff, func() (*attached, error) { return b.startSonde(c) }, r, i == 0); err != nil {
			r.failed = err.Error()
			return
		}
	}
	if err := b.runLoops(&r.untraced); err != nil {
		r.failed = err.Error()
	}
}

// runLoop runs the getppid loop once, pinned, and returns ns per call.
func (b *bench) runLoop() (float64, error) { return benchutil.RunLoop(b.loop, b.calls, b.cpu) }

func (b *bench) runLoops(into *[]float64) error {
	for range b.reps {
		ns, err := b.runLoop()
		if err != nil {
			return err
		}
		*into = append(*into, ns)
	}
	return nil
}

// resume resumes the dataset and waits until the agent holds its program.
func resume(a *agentProc) (*attached, error) {
	if err := a.suspend(costSpec, false); err != nil {
		return nil, err
	}
	detach := func() error { return a.suspend(costSpec, true) }
	if err := waitAttached(a.pid(), func() error { return nil }); err != nil {
		return nil, errors.Join(err, detach())
	}
	return &attached{pid: a.pid(), detach: detach}, nil
}

// waitAttached waits until pid holds a tracing program and a link, or
// alive says it is gone.
func waitAttached(pid int, alive func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		pr, err := programsOf(pid)
		if err == nil {
			n, links := len(pr.list), pr.links
			pr.close()
			if n > 0 && links > 0 {
				return nil
			}
		}
		if err := alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d: no BPF program attached after 30 s", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startFloor starts bench/floor in the mode of the dataset's program.
func (b *bench) startFloor() (*attached, error) {
	p, err := startChild(b.floor, "-mode", floorMode)
	if err != nil {
		return nil, err
	}
	if err := p.waitLine(regexp.MustCompile(`^attached$`), 30*time.Second); err != nil {
		p.kill()
		return nil, err
	}
	return &attached{pid: p.cmd.Process.Pid, detach: p.interrupt}, nil
}

// startSonde runs the dataset's D, as the API shows it, with sonde -n and
// the agent's aggregation size.
func (b *bench) startSonde(c *costs) (*attached, error) {
	argv := append(strings.Fields(c.options), "-n", c.program)
	p, err := startChild(b.sonde, argv...)
	if err != nil {
		return nil, err
	}
	if err := waitAttached(p.cmd.Process.Pid, p.alive); err != nil {
		p.kill()
		return nil, err
	}
	return &attached{pid: p.cmd.Process.Pid, detach: p.interrupt}, nil
}

// child is a tool the harness started; its output (stdout and stderr
// together) is kept.
type child struct {
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	lines  []string
	cond   *sync.Cond
	eof    bool
}

var (
	childrenMu sync.Mutex
	children   = map[*child]bool{}
)

func startChild(path string, args ...string) (*child, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &child{cmd: exec.Command(path, args...), exited: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	c.cmd.Stdout, c.cmd.Stderr = pw, pw
	err = c.cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, err
	}
	childrenMu.Lock()
	children[c] = true
	childrenMu.Unlock()
	go c.read(pr)
	go func() {
		c.cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

func (c *child) read(pr *os.File) {
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		c.mu.Lock()
		c.lines = append(c.lines, sc.Text())
		c.cond.Broadcast()
		c.mu.Unlock()
	}
	pr.Close()
	c.mu.Lock()
	c.eof = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// waitLine waits for a line of output matching re.
func (c *child) waitLine(re *regexp.Regexp, timeout time.Duration) error {
	found := make(chan bool, 1)
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i := 0; ; i++ {
			for i >= len(c.lines) && !c.eof {
				c.cond.Wait()
			}
			if i >= len(c.lines) {
				found <- false
				return
			}
			if re.MatchString(c.lines[i]) {
				found <- true
				return
			}
		}
	}()
	select {
	case ok := <-found:
		if !ok {
			return fmt.Errorf("%s exited before saying %q:\n%s", c.cmd.Path, re, c.tail())
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("%s did not say %q after %s", c.cmd.Path, re, timeout)
	}
}

// alive is an error once the child has exited.
func (c *child) alive() error {
	select {
	case <-c.exited:
		return fmt.Errorf("%s exited: %s\n%s", c.cmd.Path, c.cmd.ProcessState, c.tail())
	default:
		return nil
	}
}

// interrupt sends SIGINT and waits for the child to exit successfully.
func (c *child) interrupt() error {
	defer c.kill()
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return err
	}
	select {
	case <-c.exited:
	case <-time.After(time.Minute):
		return fmt.Errorf("%s still running a minute after SIGINT", c.cmd.Path)
	}
	if !c.cmd.ProcessState.Success() {
		return fmt.Errorf("%s: %s\n%s", c.cmd.Path, c.cmd.ProcessState, c.tail())
	}
	return nil
}

// kill ends the child if it still runs.
func (c *child) kill() {
	select {
	case <-c.exited:
	default:
		c.cmd.Process.Kill()
		<-c.exited
	}
	childrenMu.Lock()
	delete(children, c)
	childrenMu.Unlock()
}

func (c *child) tail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	from := max(0, len(c.lines)-10)
	return "    " + strings.Join(c.lines[from:], "\n    ")
}

// killChildren ends every child still running (when the harness is
// interrupted).
func killChildren() {
	childrenMu.Lock()
	defer childrenMu.Unlock()
	for c := range children {
		c.cmd.Process.Kill()
	}
}
