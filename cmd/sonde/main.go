// Command sonde is DTrace for Linux: it compiles D programs to eBPF and
// prints what they trace as dtrace(1) does.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sonde-trace/sonde/internal/codegen"
	"github.com/sonde-trace/sonde/internal/consume"
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/lib"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/provider/pid"
	"github.com/sonde-trace/sonde/internal/provider/usdtprov"
	"github.com/sonde-trace/sonde/internal/providers"
	"github.com/sonde-trace/sonde/internal/runtime"
	"github.com/sonde-trace/sonde/internal/value"
	"golang.org/x/sys/unix"
)

// Version is set at build time.
var Version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "sonde: "+format+"\n", args...)
}

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args)
	if err != nil {
		warnf(stderr, "%v", err)
		fmt.Fprint(stderr, usage)
		return 2
	}
	if cfg.help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if cfg.version {
		fmt.Fprintf(stdout, "sonde: Sun D 1.13 compatible, sonde %s\n", Version)
		return 0
	}
	if cfg.lazy {
		// dtrace -G links DOF into an object; sonde's headers emit
		// .note.stapsdt probes that the kernel's uprobes use directly.
		warnf(stderr, "-G is not needed on Linux: the header from 'sonde -h -s provider.d' puts the probes in the program itself; there is nothing to link")
		return 0
	}
	if cfg.header {
		d := &driver{cfg: cfg, stdout: stdout, stderr: stderr}
		return d.genHeader()
	}
	if len(cfg.sources) == 0 && !cfg.list {
		if len(args) == 0 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		warnf(stderr, "no probes specified") // as dtrace says, exit status 1
		return 1
	}
	d := &driver{cfg: cfg, stdout: stdout, stderr: stderr}
	return d.run()
}

type driver struct {
	cfg    *config
	stdout io.Writer
	stderr io.Writer
	out    io.Writer
	srcs   diag.Sources
	opts   options
	child  *exec.Cmd
	// release lets -c's held command go (true) or kills it (false);
	// exited is closed when it has exited.
	release chan bool
	exited  chan struct{}
	// advance runs the held command to an address; advanced says how.
	advance  chan uint64
	advanced chan error
	// childStatus is how -c's command ended, once exited is closed.
	childStatus unix.WaitStatus
	// onChildExit runs as -c's command exits, its address space intact.
	onChildExit func(pid int)
	reg         *providers.Registry
	// late follows the libraries the target loads later (late.go).
	late *late
	// consumer reads the session's records, once consuming
	consumer *consume.Consumer
	// perSource counts the probe clauses of each source
	perSource []int
}

func (d *driver) run() int {
	d.out = d.stdout
	if d.cfg.output != "" {
		f, err := os.OpenFile(d.cfg.output, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			warnf(d.stderr, "failed to open output file '%s': %v", d.cfg.output, err)
			return 1
		}
		defer f.Close()
		d.out = f
	}
	macros := map[string]string{}
	for i, a := range d.cfg.macroArgs {
		macros[strconv.Itoa(i+1)] = a
	}
	macros["0"] = "sonde"
	macros["pid"] = strconv.Itoa(os.Getpid())
	macros["ppid"] = strconv.Itoa(os.Getppid())
	macros["uid"] = strconv.Itoa(os.Getuid())
	macros["gid"] = strconv.Itoa(os.Getgid())
	if d.cfg.command != "" {
		pid, err := d.startChild()
		if err != nil {
			warnf(d.stderr, "%v", err)
			return 1
		}
		macros["target"] = strconv.Itoa(pid)
	} else if d.cfg.pid != 0 {
		if err := syscall.Kill(d.cfg.pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
			warnf(d.stderr, "failed to grab pid %d: no such process", d.cfg.pid)
			return 1
		}
		macros["target"] = strconv.Itoa(d.cfg.pid)
	}
	status := d.trace(macros)
	d.killChild()
	return status
}

// compile parses and checks every source.
func (d *driver) compile(macros map[string]string) (*check.Info, []string, bool) {
	d.srcs = diag.Sources{}
	libs, ok := d.loadLibs() // libs.go: D libraries, before the program
	if !ok {
		return nil, nil, false
	}
	var progs []*ast.Program
	var descs []string
	var errs diag.List
	for i, s := range d.cfg.sources {
		name, text, err := d.sourceText(i, s)
		if err != nil {
			warnf(d.stderr, "%v", err)
			return nil, nil, false
		}
		d.srcs[name] = text
		if s.kind == "s" && d.cfg.cpp {
			if orig, err := os.ReadFile(s.text); err == nil {
				d.srcs[name] = string(orig) // errors point into the script as written
			}
		}
		prog, perrs := parser.ParseFile(name, []byte(text), &parser.Options{Macros: macros, Types: lib.TypeNames(libs)})
		errs = append(errs, perrs...)
		n := 0
		if prog != nil {
			progs = append(progs, prog)
			for _, decl := range prog.Decls {
				if _, ok := decl.(*ast.ProbeClause); ok {
					n++
				}
			}
		}
		d.perSource = append(d.perSource, n)
		descs = append(descs, describeSource(s))
	}
	if len(errs) > 0 {
		d.report(errs)
		return nil, nil, false
	}
	// Options given with -x apply before pragmas are read by the checker.
	d.opts = defaultOptions()
	for _, x := range d.cfg.xopts {
		name, val, _ := strings.Cut(x, "=")
		if err := d.opts.set(name, val); err != nil {
			warnf(d.stderr, "failed to set -x %s: %v", name, err)
			return nil, nil, false
		}
	}
	if d.cfg.quiet {
		d.opts.quiet = true
	}
	if err := d.advanceChild(d.evalTime(progs)); err != nil {
		warnf(d.stderr, "failed to run %s to its entry point: %v", d.cfg.command, err)
		return nil, nil, false
	}
	d.reg = providers.New()
	libProgs := d.libPrograms(libs)
	cfg := check.Config{
		Resolver:    d.reg,
		Macros:      macros,
		ZeroMatches: d.cfg.zero || d.cfg.list,
		Destructive: d.cfg.destruct,
		StrSize:     d.opts.strsize,
		StackFrames: d.opts.stackframes, UStackFrames: d.opts.ustackframes,
	}
	info, cerrs := check.Check(append(libProgs, progs...), cfg)
	if len(cerrs) > 0 {
		d.report(cerrs)
		return nil, nil, false
	}
	for _, o := range info.Options {
		if err := d.opts.set(o.Name, o.Value); err != nil {
			fmt.Fprint(d.stderr, diag.Render(&diag.Error{Pos: o.Pos, Tag: "D_PRAGMA_OPTSET", Msg: fmt.Sprintf("failed to set option '%s': %v", o.Name, err)}, d.srcs, d.opts.errtags))
			return nil, nil, false
		}
	}
	if len(info.Options) > 0 && (d.opts.strsize != 256 || d.opts.stackframes != 0 || d.opts.ustackframes != 0) {
		// strsize and the stack depths from a pragma change types: check again.
		cfg.StrSize, cfg.StackFrames, cfg.UStackFrames = d.opts.strsize, d.opts.stackframes, d.opts.ustackframes
		info, cerrs = check.Check(append(libProgs, progs...), cfg)
		if len(cerrs) > 0 {
			d.report(cerrs)
			return nil, nil, false
		}
	}
	if userProbes(progs) {
		cfg.ZeroMatches = true // a library loaded later may have none yet
		d.late = &late{progs: append(libProgs, progs...), cfg: cfg}
	}
	return info, descs, true
}

// warnManySites says when the pid or USDT probes enabled are placed at
// tens of thousands of sites (pid$target::*:entry): every call through one
// costs the traced process a trap into the kernel.
func (d *driver) warnManySites(p *plan.Plan) {
	n := 0
	for _, pr := range p.Programs {
		for _, q := range pr.Probes {
			n += len(q.Sites)
		}
	}
	if n >= 10000 {
		warnf(d.stderr, "placing %d uprobes: each call through one traps into the kernel, and the traced process runs slower", n)
	}
}

// reportUnplaced names the uprobe sites left out (instructions with a
// lock or segment prefix the kernel cannot single-step, or that it would
// rewrite into a call writing below %rsp), one warning per reason: their
// probes fire everywhere else.
func (d *driver) reportUnplaced(us []runtime.Unplaced) {
	byWhy := map[string][]runtime.Unplaced{}
	for _, u := range us {
		byWhy[u.Why] = append(byWhy[u.Why], u)
	}
	d.reportUnplacedWhy(byWhy[""], "the kernel cannot probe the instruction there")
	d.reportUnplacedWhy(byWhy[runtime.WhyRedZone], runtime.WhyRedZone)
}

func (d *driver) reportUnplacedWhy(us []runtime.Unplaced, why string) {
	if len(us) == 0 {
		return
	}
	var names []string
	for i, u := range us {
		if i == 5 {
			names = append(names, "...")
			break
		}
		if p := d.reg.Probe(u.ProbeID); p != nil {
			names = append(names, fmt.Sprintf("%s:%s:%s:%s", p.Provider, p.Module, p.Function, p.Name))
		} else {
			names = append(names, fmt.Sprintf("%s+%#x", u.Path, u.Offset))
		}
	}
	warnf(d.stderr, "%d probe site%s could not be placed (%s): %s",
		len(us), plural(len(us)), why, strings.Join(names, ", "))
}

// evalTime is where -c's command is held while its probes are placed:
// -x evaltime, else at its exec (so that the dynamic linker's work is
// traced too) unless a pid or USDT probe needs its shared libraries
// mapped: then, as dtrace's default (postinit), at its entry point.
func (d *driver) evalTime(progs []*ast.Program) string {
	if d.opts.evaltime != "" {
		return d.opts.evaltime
	}
	if userProbes(progs) {
		return "postinit"
	}
	return "exec"
}

// userProbes says whether progs have pid or USDT probe descriptions.
func userProbes(progs []*ast.Program) bool {
	pidp, usdtp := &pid.Provider{}, &usdtprov.Provider{}
	for _, prog := range progs {
		for _, decl := range prog.Decls {
			if c, ok := decl.(*ast.ProbeClause); ok {
				for _, pd := range c.Probes {
					d := provider.Desc{Provider: pd.Provider, Module: pd.Module, Function: pd.Function, Name: pd.Name}
					if pidp.Serves(d) || usdtp.Serves(d) {
						return true
					}
				}
			}
		}
	}
	return false
}

func (d *driver) report(errs diag.List) {
	tags := d.opts.errtags
	for _, x := range d.cfg.xopts {
		if x == "errtags" {
			tags = true
		}
	}
	for _, e := range errs {
		fmt.Fprint(d.stderr, diag.Render(e, d.srcs, tags))
	}
}

// loadError reports a failure to load: a clause the kernel refused with
// its source line, as a compile error is.
func (d *driver) loadError(err error) {
	var ce *runtime.ClauseError
	if !errors.As(err, &ce) {
		warnf(d.stderr, "%v", err)
		return
	}
	fmt.Fprint(d.stderr, diag.Render(&diag.Error{Pos: ce.Pos, Msg: ce.Msg}, d.srcs, false))
	if ce.Log != "" {
		fmt.Fprintln(d.stderr, ce.Log)
	}
}

func describeSource(s source) string {
	switch s.kind {
	case "s":
		return "script '" + s.text + "'"
	}
	// dtrace crops a -n description at its predicate or body for reporting
	text := s.text
	if i := strings.IndexAny(text, "{/;"); i >= 0 {
		text = text[:i]
	}
	return "description '" + text + "'"
}

// sourceText returns the name and D text of a source.
func (d *driver) sourceText(i int, s source) (string, string, error) {
	switch s.kind {
	case "s":
		b, err := os.ReadFile(s.text)
		if err != nil {
			return "", "", fmt.Errorf("failed to open %s: %v", s.text, errors.Unwrap(err))
		}
		text := string(b)
		if d.cfg.cpp {
			out, err := runCPP(s.text, text)
			if err != nil {
				return "", "", err
			}
			text = out
		}
		return s.text, text, nil
	case "n":
		return "-n", s.text, nil
	case "P":
		return "-P", s.text + ":::", nil
	case "m":
		return "-m", ":" + s.text + "::", nil
	case "f":
		return "-f", "::" + s.text + ":", nil
	}
	return "-" + s.kind, s.text, nil
}

// runCPP runs the C preprocessor over a script.
func runCPP(name, text string) (string, error) {
	path, err := exec.LookPath("cpp")
	if err != nil {
		return "", fmt.Errorf("-C requires the C preprocessor, but cpp was not found in PATH (install cpp, e.g. apt-get install cpp)")
	}
	// A #! line is not C: blank it, keeping the line count.
	if strings.HasPrefix(text, "#!") {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i:]
		} else {
			text = ""
		}
	}
	cmd := exec.Command(path, "-undef", "-D__linux", "-D__sonde", "-D__SUNW_D=1", "-")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("cpp failed on %s:\n%s", name, ee.Stderr)
		}
		return "", fmt.Errorf("cpp failed on %s: %v", name, err)
	}
	// Line markers name the script, so errors point into it.
	return strings.ReplaceAll(string(out), `"<stdin>"`, strconv.Quote(name)), nil
}

var t0 = time.Now()

func phase(name string) {
	if os.Getenv("SONDE_TIMING") != "" {
		fmt.Fprintf(os.Stderr, "%8.2f ms %s\n", float64(time.Since(t0).Microseconds())/1000, name)
	}
}

func (d *driver) trace(macros map[string]string) int {
	phase("start")
	info, descs, ok := d.compile(macros)
	phase("compiled")
	if !ok {
		return 1
	}
	if d.cfg.list {
		return d.listProbes(info)
	}
	gen := codegen.Options{Providers: d.reg, StrSize: d.opts.strsize, RingSize: d.opts.bufsize,
		AggEntries: d.opts.aggEntries, DynEntries: d.opts.dynEntries, Destructive: d.cfg.destruct,
		FullScratch: d.late != nil}
	p, err := codegen.Generate(info, gen)
	if err != nil {
		var ce *codegen.Error
		if errors.As(err, &ce) {
			fmt.Fprint(d.stderr, diag.Render(&diag.Error{Pos: ce.Pos, Msg: ce.Msg}, d.srcs, false))
		} else {
			warnf(d.stderr, "%v", err)
		}
		return 1
	}
	phase("generated")
	if d.cfg.showBPF {
		printPlan(d.stdout, p)
	}
	if d.cfg.compile {
		return 0
	}
	if !d.cfg.zero && enabledProbes(info) == 0 {
		// An empty program would trace nothing forever.
		d.noticeMatches(info, descs)
		warnf(d.stderr, "no probes matched")
		return 1
	}
	d.warnManySites(p)
	sess, err := runtime.Load(p, &runtime.Options{Verbose: d.cfg.verbose})
	if err != nil {
		d.loadError(err)
		return 1
	}
	phase("loaded")
	defer func() { sess.Close(); phase("closed") }()
	d.reportUnplaced(sess.TakeUnplaced())
	d.noticeMatches(info, descs)
	return d.consume(sess, p, gen)
}

// noticeMatches says how many probes each source matched, as dtrace does
// unless quiet.
func (d *driver) noticeMatches(info *check.Info, descs []string) {
	if d.opts.quiet {
		return
	}
	counts := matchCounts(info, d.perSource)
	for i, desc := range descs {
		n := counts[i]
		warnf(d.stderr, "%s matched %d probe%s", desc, n, plural(n))
	}
}

// enabledProbes counts the probes the program's clauses enable.
func enabledProbes(info *check.Info) int {
	n := 0
	for _, c := range info.Clauses {
		n += len(c.Probes)
	}
	return n
}

// matchCounts counts the probes each source's clauses enable (clauses are
// in source order; perSource says how many each source has).
func matchCounts(info *check.Info, perSource []int) []int {
	out := make([]int, len(perSource))
	k := 0
	// dtrace counts a probe once for each clause that enables it.
	for i, n := range perSource {
		for j := 0; j < n && k < len(info.Clauses); j++ {
			out[i] += len(info.Clauses[k].Probes)
			k++
		}
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// sink is where the session's output goes: dtrace(1)'s text, JSON, or
// folded stacks.
func (d *driver) sink() value.Sink {
	text := format.Text{Out: d.out, Warn: d.stderr, Quiet: d.opts.quiet, Prog: "sonde",
		Agg: format.AggOpts{SortKey: d.opts.aggsortkey, SortRev: d.opts.aggsortrev, SortPos: d.opts.aggsortpos, SortKeyPos: d.opts.aggsortkeypos}}
	switch {
	case d.cfg.json:
		return &format.JSON{Text: text}
	case d.cfg.folded:
		return &format.Folded{Text: text}
	}
	return &text
}

// consume runs BEGIN, reads records until exit(), a signal or the end of
// the traced process, then runs END and prints the aggregations.
func (d *driver) consume(sess *runtime.Session, p *plan.Plan, gen codegen.Options) int {
	c, err := consume.New(sess, consume.Options{Sink: d.sink(), SystemOut: d.out})
	if err != nil {
		warnf(d.stderr, "%v", err)
		return 1
	}
	defer c.Close()
	d.consumer = c
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	// A signal wakes the consumer at once rather than at its next poll.
	stop := make(chan struct{})
	go func() {
		<-sigs
		close(stop)
		c.Wake()
	}()
	phase("consumer ready")
	if err := sess.Run("BEGIN"); err != nil {
		warnf(d.stderr, "%v", err)
		return 1
	}
	if d.child != nil {
		c.Watch(d.child.Process.Pid)
		d.onChildExit = consume.LastLook
		d.startLate(d.child.Process.Pid, gen)
	} else if d.cfg.pid != 0 {
		c.Watch(d.cfg.pid)
		d.startLate(d.cfg.pid, gen)
	} else {
		d.late = nil
	}
	childDone := d.releaseChild()
	pidDone := d.watchPid()
	// Each Poll is one bounded pass over the buffer, so that a signal,
	// exit() or the end of -c's command is seen between passes even
	// while probes keep refilling it; drops are reported at statusrate.
	tick := d.opts.switchrate
	lastStat := time.Now()
	for !c.Exited {
		if err := c.Poll(tick); err != nil {
			warnf(d.stderr, "reading records: %v", err)
			break
		}
		c.WatchProcesses()
		d.followLate(sess)
		if time.Since(lastStat) >= d.opts.statusrate {
			c.Stats()
			lastStat = time.Now()
		}
		select {
		case <-stop:
			goto end
		case <-childDone:
			_ = c.Drain()
			warnf(d.stderr, "%s", exitNotice(d.child.Process.Pid, d.childStatus))
			goto end
		case <-pidDone:
			_ = c.Drain()
			warnf(d.stderr, "pid %d has exited", d.cfg.pid)
			goto end
		default:
		}
	}
end:
	phase("stopping")
	// Only END and ERROR record from now on: what is in the buffer is
	// what there is to drain.
	if err := sess.Stop(); err != nil {
		warnf(d.stderr, "%v", err)
	}
	_ = c.Drain()
	if err := sess.Run("END"); err != nil {
		warnf(d.stderr, "%v", err)
	}
	_ = c.Drain()
	c.Stats()
	c.Final()
	if c.Exited {
		return c.ExitCode
	}
	return 0
}

// listProbes prints -l output.
func (d *driver) listProbes(info *check.Info) int {
	var probes []*provider.Probe
	if len(d.cfg.sources) == 0 {
		ps, _ := d.reg.Match(provider.Desc{})
		probes = ps
	} else {
		seen := map[uint32]bool{}
		for _, c := range info.Clauses {
			for _, p := range c.Probes {
				if !seen[p.ID] {
					seen[p.ID] = true
					probes = append(probes, p)
				}
			}
		}
	}
	if d.cfg.verbose {
		d.reg.TypeArgs(probes)
	}
	fmt.Fprintf(d.out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME")
	for _, p := range probes {
		fmt.Fprintf(d.out, "%5d %10s %17s %33s %s\n", p.ID, p.Provider, p.Module, p.Function, p.Name)
		if d.cfg.verbose {
			fmt.Fprintf(d.out, "\n\tArgument Types\n")
			if len(p.Args) == 0 {
				fmt.Fprintf(d.out, "\t\tNone\n")
			}
			for i, a := range p.Args {
				t := a.Type
				if a.XType != "" {
					t = a.XType
				}
				fmt.Fprintf(d.out, "\t\targs[%d]: %s\n", i, t)
				if a.Struct != nil {
					printMembers(d.out, "args["+strconv.Itoa(i)+"]->", a.Struct)
				}
			}
			if p.Record != nil {
				fmt.Fprintf(d.out, "\n\tArgument Record (args->)\n")
				printMembers(d.out, "args->", p.Record)
			}
			fmt.Fprintln(d.out)
		}
	}
	return 0
}

func printPlan(w io.Writer, p *plan.Plan) {
	for _, m := range p.Maps {
		fmt.Fprintf(w, "map %s: %s key %d value %d entries %d\n", m.Name, m.Type, m.KeySize, m.ValueSize, m.MaxEntries)
	}
	for _, pr := range p.Programs {
		fmt.Fprintf(w, "\nprogram %s (%s, %s, %d instructions):\n%v", pr.Name, pr.Type, pr.Hook, len(pr.Insns), pr.Insns)
	}
}

// printMembers lists a provider structure's members for -lv.
func printMembers(w io.Writer, prefix string, s *provider.Struct) {
	for _, m := range s.Members {
		decl := m.Type // a tracepoint field's declaration names it
		if !m.InHook {
			decl = m.Type + " " + prefix + m.Name
		}
		fmt.Fprintf(w, "\t\t%s\n", decl)
	}
}
