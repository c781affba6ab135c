// Command sonde is DTrace for Linux: it compiles D programs to eBPF and
// prints what they trace as dtrace(1) does.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/provider"
	"github.com/sonde-trace/sonde/internal/target"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

// Version is set at build time.
var Version = "0.1.0-dev"

func main() {
	if filepath.Base(os.Args[0]) == "dtrace" {
		// installed as dtrace (a symlink, as distributions do): D errors
		// in dtrace's layout, for the scripts that match on them
		dtraceLayout, progName = true, "dtrace"
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// dtraceLayout is set when sonde runs as dtrace; progName is then
// "dtrace", the prefix of its messages ("dtrace: script 'x.d' matched 3
// probes"), as scripts wrapping dtrace expect.
var (
	dtraceLayout bool
	progName     = "sonde"
)

func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, progName+": "+format+"\n", args...)
}

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "analytics" {
		return analytics(args[1:], stderr)
	}
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
		d := &driver{cfg: cfg, stdout: stdout, stderr: stderr}
		return d.genObject()
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
	// proc is $target's process (-c or -p), nil for none
	proc *target.Process
	// prom serves the aggregations (--prometheus), nil for none
	prom *exporter
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
	tc := &tracer.Config{Sources: d.cfg.sources, MacroArgs: d.cfg.macroArgs, Options: d.cfg.xopts,
		LibDirs: d.cfg.libdirs, Cpp: d.cfg.cpp, CppArgs: d.cfg.cppArgs, Quiet: d.cfg.quiet, Destructive: d.cfg.destruct,
		ZeroMatches: d.cfg.zero, Listing: d.cfg.list, Prog: "sonde"}
	var err error
	switch {
	case d.cfg.command != "":
		d.proc, err = target.Start(d.cfg.command)
	case d.cfg.pid != 0:
		d.proc, err = target.Grab(d.cfg.pid)
	}
	if err != nil {
		warnf(d.stderr, "%v", err)
		return 1
	}
	if d.proc != nil {
		tc.Target = d.proc
		defer d.proc.Kill()
	}
	return d.trace(tc)
}

// fail prints an error of the tracer: D errors with their source line.
func (d *driver) fail(p *tracer.Program, err error) {
	if p != nil && dtraceLayout {
		if s := p.RenderDTrace(err); s != "" {
			fmt.Fprint(d.stderr, s)
			return
		}
	}
	if p != nil {
		if s := p.Render(err); s != "" {
			fmt.Fprint(d.stderr, s)
			return
		}
	}
	warnf(d.stderr, "%v", err)
}

var t0 = time.Now()

func phase(name string) {
	if os.Getenv("SONDE_TIMING") != "" {
		fmt.Fprintf(os.Stderr, "%8.2f ms %s\n", float64(time.Since(t0).Microseconds())/1000, name)
	}
}

func (d *driver) trace(tc *tracer.Config) int {
	phase("start")
	p, err := tracer.Compile(tc)
	phase("compiled")
	if err != nil {
		d.fail(p, err)
		return 1
	}
	if d.cfg.list {
		return d.listProbes(p)
	}
	if d.cfg.showBPF {
		printPlan(d.stdout, p.Plan)
	}
	if d.cfg.compile {
		return 0
	}
	if !d.cfg.zero && p.Enabled() == 0 {
		// An empty program would trace nothing forever.
		d.noticeMatches(p)
		warnf(d.stderr, "no probes matched")
		return 1
	}
	sess, err := p.Start(&tracer.StartOptions{Sink: d.sink(p.Options), SystemOut: d.out, Verbose: d.cfg.verbose,
		Warn: func(msg string) { warnf(d.stderr, "%s", msg) }})
	if err != nil {
		d.fail(p, err)
		return 1
	}
	phase("loaded")
	defer func() { sess.Close(); phase("closed") }()
	if d.cfg.promAddr != "" {
		e, addr, err := startExporter(d.cfg.promAddr, sess)
		if err != nil {
			warnf(d.stderr, "%v", err)
			return 1
		}
		defer e.close()
		d.prom = e
		warnf(d.stderr, "serving the aggregations on http://%s/metrics", addr)
	}
	d.noticeMatches(p)
	return d.consume(sess)
}

// noticeMatches says how many probes each source matched, as dtrace does
// unless quiet.
func (d *driver) noticeMatches(p *tracer.Program) {
	if p.Options.Quiet {
		return
	}
	descs, counts := p.Matches()
	for i, desc := range descs {
		n := counts[i]
		warnf(d.stderr, "%s matched %d probe%s", desc, n, plural(n))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// sink is where the session's output goes: dtrace(1)'s text, JSON, or
// folded stacks.
func (d *driver) sink(o tracer.Options) value.Sink {
	text := format.Text{Out: d.out, Warn: d.stderr, Quiet: o.Quiet, Flow: o.FlowIndent, Prog: progName,
		Agg: format.AggOpts{SortKey: o.AggSortKey, SortRev: o.AggSortRev, SortPos: o.AggSortPos, SortKeyPos: o.AggSortKeyPos}}
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
func (d *driver) consume(sess *tracer.Session) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	// A signal wakes the consumer at once rather than at its next poll.
	stop := make(chan struct{})
	go func() {
		<-sigs
		close(stop)
		sess.Wake()
	}()
	phase("consumer ready")
	if err := sess.Begin(); err != nil {
		warnf(d.stderr, "%v", err)
		return 1
	}
	var done <-chan struct{}
	if d.proc != nil {
		d.proc.OnExit = sess.LastLook
		done = d.proc.Release()
	}
	for {
		if exited, _ := sess.Exited(); exited {
			break
		}
		if err := sess.Poll(); err != nil {
			warnf(d.stderr, "%v", err)
			break
		}
		if d.prom != nil {
			d.prom.serve()
		}
		select {
		case <-stop:
			goto end
		case <-done:
			sess.Drain()
			warnf(d.stderr, "%s", d.proc.ExitNotice())
			goto end
		default:
		}
	}
end:
	phase("stopping")
	if err := sess.End(); err != nil {
		warnf(d.stderr, "%v", err)
	}
	if exited, status := sess.Exited(); exited {
		return status
	}
	return 0
}

// printAttr prints one attribute section of -lv, as dtrace's
// print_probe_info does.
func printAttr(w io.Writer, title string, a provider.Attr) {
	fmt.Fprintf(w, "\n\t%s\n", title)
	fmt.Fprintf(w, "\t\tIdentifier Names: %s\n", a.Name)
	fmt.Fprintf(w, "\t\tData Semantics:   %s\n", a.Data)
	fmt.Fprintf(w, "\t\tDependency Class: %s\n", a.Class)
}

// listProbes prints -l output.
func (d *driver) listProbes(p *tracer.Program) int {
	var probes []*provider.Probe
	if len(d.cfg.sources) == 0 {
		ps, _ := p.Registry.Match(provider.Desc{})
		probes = ps
	} else {
		seen := map[uint32]bool{}
		for _, c := range p.Info.Clauses {
			for _, p := range c.Probes {
				if !seen[p.ID] {
					seen[p.ID] = true
					probes = append(probes, p)
				}
			}
		}
	}
	if d.cfg.verbose {
		p.Registry.TypeArgs(probes)
	}
	fmt.Fprintf(d.out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME")
	reg := p.Registry
	for _, p := range probes {
		fmt.Fprintf(d.out, "%5d %10s %17s %33s %s\n", p.ID, p.Provider, p.Module, p.Function, p.Name)
		if d.cfg.verbose {
			if desc, args, ok := reg.Attributes(p); ok {
				printAttr(d.out, "Probe Description Attributes", desc)
				printAttr(d.out, "Argument Attributes", args)
			}
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
