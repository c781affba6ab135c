package main

import (
	"bufio"
	"fmt"
	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Result is what was measured for one tool and scenario.
type Result struct {
	Skipped    string    // why nothing was measured
	Failed     string    // why the measurement is incomplete
	Attach     []float64 // ms from exec to the ready line, one per start
	Exit       []float64 // ms from SIGINT to exit, one per start
	RSS        []float64 // MiB, peak resident set, one per start
	Untraced   []float64 // ns per getppid call before the tool starts and after it exits
	Traced     []float64 // ns per getppid call while the tool runs
	Resent     int       // SIGINTs sent again because the tool had not exited
	Counted    int64     // getppid entries the tool reported
	NoCount    bool      // a run's output did not give the count
	WantCounts int64     // getppid calls made while it ran

	// Profile scenarios (profile.go), one value per start.
	SampleNs     []float64 // BPF run time per perf event, ns
	Rate         []float64 // perf events per second, all CPUs
	CPUStart     []float64 // ms of tool CPU until attached
	CPURun       []float64 // ms of tool CPU while the workload ran
	CPUExit      []float64 // ms of tool CPU from SIGINT until exited
	CPUTotal     []float64 // ms of tool CPU, rusage from wait4
	OutputLines  []float64 // lines the tool printed
	Stacks       []float64 // stacks the tool printed
	Programs     int       // perf-event BPF programs the tool attached
	Unsymbolised int       // starts whose output did not name the symbol
}

// Overhead is the median traced minus the median untraced ns per call.
func (r *Result) Overhead() (float64, bool) {
	if len(r.Traced) == 0 || len(r.Untraced) == 0 {
		return 0, false
	}
	return benchutil.Median(r.Traced) - benchutil.Median(r.Untraced), true
}

// bench holds what every measurement shares.
type bench struct {
	loop     string // path of the getppid loop
	hot      string // path of the profile workload (bench/hot)
	calls    int    // getppid calls per loop run
	reps     int    // loop runs per measurement
	cpu      int    // CPU the loop is pinned to, -1 for none
	paths    map[string]string
	timeout  time.Duration // for attaching, and again for exiting
	progress func(format string, args ...any)
}

// runLoop runs the getppid loop once and returns ns per call.
func (b *bench) runLoop() (float64, error) { return benchutil.RunLoop(b.loop, b.calls, b.cpu) }

func (b *bench) runLoops(into *[]float64) error {
	for i := 0; i < b.reps; i++ {
		ns, err := b.runLoop()
		if err != nil {
			return err
		}
		*into = append(*into, ns)
	}
	return nil
}

// measure starts the tool as often as the scenario asks. When the scenario
// measures overhead, each start runs the loop while the tool is attached,
// and the loop also runs untraced before each start and after the last, so
// that traced and untraced runs are interleaved in time.
func (b *bench) measure(s *Scenario, t *ToolRun) *Result {
	r := &Result{}
	for i := 0; i < starts(s, t) && r.Failed == ""; i++ {
		b.start(s, t, r, i)
	}
	b.finish(s, r)
	return r
}

// starts is how often the tool is started for the scenario.
func starts(s *Scenario, t *ToolRun) int {
	if t.Starts > 0 {
		return t.Starts
	}
	return s.Starts
}

// start is start i of the tool: the untraced loop runs first if the
// scenario measures overhead. A failure is recorded in r.
func (b *bench) start(s *Scenario, t *ToolRun, r *Result, i int) {
	if s.Overhead {
		if err := b.runLoops(&r.Untraced); err != nil {
			r.Failed = err.Error()
			return
		}
	}
	b.progress("%s %s: start %d/%d", t.Tool, s.ID, i+1, starts(s, t))
	if err := b.once(s, t, r); err != nil {
		r.Failed = err.Error()
	}
}

// finish runs the untraced loop once more after the last start, if the
// scenario measures overhead and nothing failed.
func (b *bench) finish(s *Scenario, r *Result) {
	if s.Overhead && r.Failed == "" {
		if err := b.runLoops(&r.Untraced); err != nil {
			r.Failed = err.Error()
		}
	}
}

// once starts the tool, waits until it is attached, runs the loop (or the
// profile workload) under it if the scenario asks, then interrupts it and
// waits for it to exit.
func (b *bench) once(s *Scenario, t *ToolRun, r *Result) error {
	withLoad := s.Overhead
	p, err := startProc(t.argv(b.paths), t.Env)
	if err != nil {
		return err
	}
	defer p.kill()
	var readyAt time.Time
	select {
	case readyAt = <-p.ready(t):
		r.Attach = append(r.Attach, ms(readyAt.Sub(p.start)))
	case <-p.exited:
		return fmt.Errorf("exited before attaching: %s\n%s", p.cmd.ProcessState, p.tail())
	case <-time.After(b.timeout):
		return fmt.Errorf("not attached after %s\n%s", b.timeout, p.tail())
	}
	if withLoad {
		if err := b.runLoops(&r.Traced); err != nil {
			return err
		}
		r.WantCounts += int64(b.reps * b.calls)
	}
	var prof *profiling
	if s.Profile {
		prof, err = b.profile(p, s, r)
		if prof != nil {
			defer prof.stop()
		}
		if err != nil {
			return err
		}
	}
	time.Sleep(time.Until(readyAt.Add(settle)))
	if prof != nil {
		prof.interrupting()
	}
	stop := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return err
	}
	check := time.NewTicker(checkEvery)
	defer check.Stop()
	deadline := time.After(b.timeout)
	for stuck, waiting := 0, true; waiting; {
		select {
		case <-p.exited:
			waiting = false
		case <-check.C:
			// bpftrace 0.17 loses a SIGINT that comes while it handles
			// its own output: it then waits in epoll_wait with no
			// timeout. Send the signal again, and time from then.
			if !t.ResendSIGINT || wchan(p.cmd.Process.Pid) != "do_epoll_wait" {
				stuck = 0
				continue
			}
			if stuck++; stuck >= 2 && p.cmd.Process.Signal(syscall.SIGINT) == nil {
				stop, stuck = time.Now(), 0
				r.Resent++
			}
		case <-deadline:
			return fmt.Errorf("still running %s after SIGINT (%s)\n%s", b.timeout, threadStates(p.cmd.Process.Pid), p.tail())
		}
	}
	r.Exit = append(r.Exit, ms(p.end.Sub(stop)))
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.RSS = append(r.RSS, float64(ru.Maxrss)/1024)
	}
	if !p.cmd.ProcessState.Success() {
		return fmt.Errorf("%s\n%s", p.cmd.ProcessState, p.tail())
	}
	if prof != nil {
		prof.exited(p, t)
	}
	if withLoad && t.count != nil {
		if n := p.count(t); n >= 0 && !r.NoCount {
			r.Counted += n
		} else {
			r.NoCount = true
		}
	}
	return nil
}

const (
	settle     = 250 * time.Millisecond // from the ready line to SIGINT, at least
	checkEvery = 500 * time.Millisecond // how often a lost SIGINT is looked for
)

// wchan is where the main thread of a process sleeps in the kernel.
func wchan(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
	return string(data)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// proc is a running tool whose output (stdout and stderr together) is read
// line by line as it comes.
type proc struct {
	cmd    *exec.Cmd
	start  time.Time
	end    time.Time
	exited chan struct{}

	mu    sync.Mutex
	lines []line
	cond  *sync.Cond
	eof   bool
}

type line struct {
	at   time.Time
	text string
}

var (
	runningMu sync.Mutex
	running   = map[*proc]bool{}
)

func startProc(argv, env []string) (*proc, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &proc{cmd: exec.Command(argv[0], argv[1:]...), exited: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = pw, pw
	p.start = time.Now()
	err = p.cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, err
	}
	runningMu.Lock()
	running[p] = true
	runningMu.Unlock()
	go p.read(pr)
	go func() {
		p.cmd.Wait()
		p.end = time.Now()
		close(p.exited)
	}()
	return p, nil
}

func (p *proc) read(pr *os.File) {
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		p.mu.Lock()
		p.lines = append(p.lines, line{time.Now(), sc.Text()})
		p.cond.Broadcast()
		p.mu.Unlock()
	}
	pr.Close()
	p.mu.Lock()
	p.eof = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// ready delivers the time the first line matching t.Ready was read.
func (p *proc) ready(t *ToolRun) <-chan time.Time {
	c := make(chan time.Time, 1)
	go func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for i := 0; ; i++ {
			for i >= len(p.lines) && !p.eof {
				p.cond.Wait()
			}
			if i >= len(p.lines) {
				return
			}
			if t.ready.MatchString(p.lines[i].text) {
				c <- p.lines[i].at
				return
			}
		}
	}()
	return c
}

// count finds the getppid count in the output, once it has all been read.
func (p *proc) count(t *ToolRun) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.eof {
		p.cond.Wait()
	}
	for _, l := range p.lines {
		if m := t.count.FindStringSubmatch(l.text); m != nil {
			n, err := strconv.ParseInt(m[1], 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// tail is the last lines of output, for error messages.
func (p *proc) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	from := max(0, len(p.lines)-10)
	for _, l := range p.lines[from:] {
		b.WriteString("    " + l.text + "\n")
	}
	return b.String()
}

// kill ends the tool if it is still running; it is a no-op once it exited.
func (p *proc) kill() {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Kill()
		<-p.exited
	}
	runningMu.Lock()
	delete(running, p)
	runningMu.Unlock()
}

// killAll ends every tool still running (when the harness is interrupted).
func killAll() {
	runningMu.Lock()
	defer runningMu.Unlock()
	for p := range running {
		p.cmd.Process.Kill()
	}
	workloads.kill()
}

// threadStates describes what each thread of a process waits in, for the
// report of a tool that does not exit.
func threadStates(pid int) string {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err.Error()
	}
	var states []string
	for _, e := range ents {
		stat, _ := os.ReadFile(dir + "/" + e.Name() + "/stat")
		wchan, _ := os.ReadFile(dir + "/" + e.Name() + "/wchan")
		f := strings.Fields(string(stat))
		state := "?"
		if len(f) > 2 {
			state = f[2]
		}
		states = append(states, fmt.Sprintf("thread %s %s in %s", e.Name(), state, wchan))
	}
	return strings.Join(states, ", ")
}
