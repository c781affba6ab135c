package tracer

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cilium/ebpf"

	"github.com/sonde-trace/sonde/internal/consume"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/runtime"
	"github.com/sonde-trace/sonde/internal/value"
)

// StartOptions say where a session's output goes.
type StartOptions struct {
	// Sink receives firings, faults, losses and the final aggregations.
	Sink value.Sink
	// SystemOut is where system() commands write; nil discards.
	SystemOut io.Writer
	// Warn receives warnings (many uprobe sites, sites left out, libraries
	// loaded later), one line each without the program's name; nil
	// discards.
	Warn func(msg string)
	// Verbose puts the verifier's log in load errors.
	Verbose bool
	// Follow, a session of a program compiled with generations, makes
	// this one count in step with it: Follow's Flip flips both at one
	// instant, after which this one's Followed must be called (a session
	// replacing another, without an event counted twice or lost).
	Follow *Session
}

// Session is a started program: its programs loaded and attached.
type Session struct {
	prog     *Program
	opts     StartOptions
	rt       *runtime.Session
	c        *consume.Consumer
	late     *late
	lastStat time.Time
}

// Start loads and attaches the program. Nothing runs until Begin.
func (p *Program) Start(o *StartOptions) (*Session, error) {
	if p.Plan == nil {
		return nil, errors.New("tracer: the program was not generated")
	}
	s := &Session{prog: p, opts: *o}
	if s.opts.Warn == nil {
		s.opts.Warn = func(string) {}
	}
	s.warnManySites(p.Plan)
	s.warnKernelSymbols(p.Plan, kallsymsReadable)
	ro := &runtime.Options{Verbose: o.Verbose}
	if o.Follow != nil {
		ro.Follow = o.Follow.rt
	}
	rt, err := runtime.Load(p.Plan, ro)
	if err != nil {
		return nil, err
	}
	s.rt = rt
	s.reportUnplaced(rt.TakeUnplaced())
	s.c, err = consume.New(rt, consume.Options{Sink: o.Sink, SystemOut: o.SystemOut, SpecSize: p.Options.SpecSize,
		BufPolicy: p.Options.BufPolicy, BufSize: p.Options.BufSize})
	if err != nil {
		rt.Close()
		return nil, err
	}
	return s, nil
}

// Begin runs BEGIN and starts following the target, if any: its address
// space for the stacks it leaves, and the libraries it loads later.
func (s *Session) Begin() error {
	if err := s.rt.Run("BEGIN"); err != nil {
		return err
	}
	s.lastStat = time.Now()
	if t := s.prog.Config.Target; t != nil {
		s.c.Watch(t.PID())
		s.startLate(t.PID())
	}
	return nil
}

// Poll consumes records for one bounded pass of at most the switchrate,
// follows the target, and reports losses at the statusrate. A signal, exit()
// or the end of the target is thus noticed between passes even while probes
// keep refilling the buffer.
func (s *Session) Poll() error {
	if err := s.c.Poll(s.prog.Options.SwitchRate); err != nil {
		return fmt.Errorf("reading records: %w", err)
	}
	s.c.WatchProcesses()
	s.followLate()
	if time.Since(s.lastStat) >= s.prog.Options.StatusRate {
		s.c.Stats()
		s.lastStat = time.Now()
	}
	return nil
}

// Wake makes a Poll in progress return now (from another goroutine).
func (s *Session) Wake() { s.c.Wake() }

// Drain consumes what the buffer holds, without waiting.
func (s *Session) Drain() { _ = s.c.Drain() }

// Exited reports whether exit() was called, and its status.
func (s *Session) Exited() (bool, int) { return s.c.Exited, s.c.ExitCode }

// Snapshot returns aggregation id (an index of Plan.Aggs) merged over
// CPUs, as it is now.
func (s *Session) Snapshot(id int) *value.Aggregation { return s.c.Snapshot(id) }

// Flip starts new generations of the aggregations of a program compiled
// with Config.AggGenerations: from the flip on, the programs count into
// empty ones, and Snapshot reads the ones swapped out once Settle has
// returned (Rotate does both).
func (s *Session) Flip() error { return s.rt.Flip() }

// Settle waits until no program can still be counting into the
// generations the last Flip swapped out: Snapshot then reads exactly what
// was counted between the last two flips.
func (s *Session) Settle() error { return s.rt.Settle() }

// Followed accounts, in a session started to follow another
// (StartOptions.Follow), for that one's Flip, which flipped this one's
// programs too.
func (s *Session) Followed() error { return s.rt.Followed() }

// Rotate flips the generations and settles them.
func (s *Session) Rotate() error { return s.rt.Rotate() }

// Recycle empties the generations read last, once their Snapshot is
// taken, so that the next Flip is a single store.
func (s *Session) Recycle() error { return s.rt.Recycle() }

// Aggregations are the program's aggregations, by ID.
func (s *Session) Aggregations() []*plan.Agg { return s.prog.Plan.Aggs }

// End stops tracing as DTrace does: only END and ERROR record from then
// on; it drains the buffer, runs END, drains again, reports the losses and
// hands the sink the aggregations printa() has not printed.
func (s *Session) End() error {
	err := s.rt.Stop()
	_ = s.c.Drain()
	if e := s.rt.Run("END"); e != nil && err == nil {
		err = e
	}
	_ = s.c.Drain()
	s.c.Stats()
	s.c.Final()
	return err
}

// Close detaches and releases everything.
func (s *Session) Close() {
	s.c.Close()
	s.rt.Close()
}

// LastLook reads a traced process's address space a last time, as it
// exits, so that its stacks still read afterwards. It is safe to call from
// another goroutine (the process's tracer).
func (s *Session) LastLook(pid int) { s.c.LastLook(pid) }

// warnManySites says when the pid or USDT probes enabled are placed at
// tens of thousands of sites (pid$target::*:entry): every call through one
// costs the traced process a trap into the kernel.
func (s *Session) warnManySites(p *plan.Plan) {
	n := 0
	for _, pr := range p.Programs {
		for _, q := range pr.Probes {
			n += len(q.Sites)
		}
	}
	if n >= 10000 {
		s.opts.Warn(fmt.Sprintf("placing %d uprobes: each call through one traps into the kernel, and the traced process runs slower", n))
	}
}

// reportUnplaced names the uprobe sites left out (instructions with a
// lock or segment prefix the kernel cannot single-step, or that it would
// rewrite into a call writing below %rsp), one warning per reason: their
// probes fire everywhere else.
func (s *Session) reportUnplaced(us []runtime.Unplaced) {
	byWhy := map[string][]runtime.Unplaced{}
	for _, u := range us {
		byWhy[u.Why] = append(byWhy[u.Why], u)
	}
	s.reportUnplacedWhy(byWhy[""], "the kernel cannot probe the instruction there")
	s.reportUnplacedWhy(byWhy[runtime.WhyRedZone], runtime.WhyRedZone)
}

func (s *Session) reportUnplacedWhy(us []runtime.Unplaced, why string) {
	if len(us) == 0 {
		return
	}
	var names []string
	for i, u := range us {
		if i == 5 {
			names = append(names, "...")
			break
		}
		if p := s.prog.Registry.Probe(u.ProbeID); p != nil {
			names = append(names, p.FullName())
		} else {
			names = append(names, fmt.Sprintf("%s+%#x", u.Path, u.Offset))
		}
	}
	s.opts.Warn(fmt.Sprintf("%d probe site%s could not be placed (%s): %s",
		len(us), plural(len(us)), why, strings.Join(names, ", ")))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// renderLoad renders a clause the kernel refused with its source line, as
// a compile error is.
func (p *Program) renderLoad(err error) string {
	var ce *runtime.ClauseError
	if !errors.As(err, &ce) {
		return ""
	}
	s := diag.Render(&diag.Error{Pos: ce.Pos, Msg: ce.Msg}, p.Sources, false)
	if ce.Log != "" {
		s += ce.Log + "\n"
	}
	return s
}

// Cost is what the session's BPF programs have cost since they were
// loaded: runs and nanoseconds, as the kernel's run-time statistics count
// them while EnableStats is held (zero otherwise).
func (s *Session) Cost() (runs, ns uint64, err error) { return s.rt.Cost() }

// Programs are the session's loaded BPF programs, in the order loaded:
// for a caller comparing them as the kernel has them (the session owns
// them; Close releases them).
func (s *Session) Programs() []*ebpf.Program { return s.rt.Programs() }

// Status reports to the sink what has been lost since the last report
// (records, aggregation entries, dynamic variables), as Poll does at the
// statusrate: for a caller that drains instead of polling.
func (s *Session) Status() {
	s.c.Stats()
	s.lastStat = time.Now()
}

// EnableStats makes the kernel count the runs and run time of every BPF
// program (what Session.Cost reads) until the Closer is closed.
func EnableStats() (io.Closer, error) { return runtime.EnableStats() }
