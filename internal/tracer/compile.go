// Package tracer is the one pipeline that sonde and sonded share: it
// compiles D sources (with the D libraries and the program's pragmas) into
// a program, starts a session (load, attach, follow the libraries a traced
// process loads later), polls it into a value.Sink, snapshots its
// aggregations as values, and stops it.
//
//	prog, err := tracer.Compile(&tracer.Config{Sources: ...})
//	sess, err := prog.Start(&tracer.StartOptions{Sink: sink})
//	sess.Begin(); for ... { sess.Poll() }; sess.End(); sess.Close()
//
// Compilation happens once here; the mains only wire flags, process
// control and signals to it.
package tracer

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sonde-trace/sonde/internal/codegen"
	"github.com/sonde-trace/sonde/internal/d/ast"
	"github.com/sonde-trace/sonde/internal/d/check"
	"github.com/sonde-trace/sonde/internal/d/diag"
	"github.com/sonde-trace/sonde/internal/d/lib"
	"github.com/sonde-trace/sonde/internal/d/parser"
	"github.com/sonde-trace/sonde/internal/plan"
	"github.com/sonde-trace/sonde/internal/probe"
	"github.com/sonde-trace/sonde/internal/providers"
)

// Config is what a command line says about a program.
type Config struct {
	Sources   []Source
	MacroArgs []string // $1, $2, ...
	Options   []string // -x name[=value], in order
	LibDirs   []string // -L
	Cpp       bool     // -C
	CppArgs   []string // -D, -U, -I, -H: given to cpp
	Quiet     bool     // -q
	// Destructive allows destructive actions (-w); the agent never sets it.
	Destructive bool
	// NoDestructive refuses destructive actions whatever the program's
	// pragmas or -x options say: D from the analytics API (statistics,
	// captures) never takes them.
	NoDestructive bool
	// ZeroMatches lets descriptions match nothing (-Z).
	ZeroMatches bool
	// Listing: probes are listed (-l), not enabled; nothing is generated.
	Listing bool
	// Target is the traced process ($target: -c or -p), nil for none.
	Target Target
	// Prog names the program in macros ($0), "sonde" when empty.
	Prog string
	// AggGenerations keeps aggregations in generations that the caller
	// swaps (Session.Rotate) and reads whole, instead of in place: the
	// agent's exact per-second reading. sonde never sets it.
	AggGenerations bool
}

// Target is the process $target names.
type Target interface {
	PID() int
	// Advance runs a command held at its exec to where its probes are to
	// be placed (DTrace's evaltime: exec, preinit, postinit, main); a
	// process that was already running (-p) has nothing to do.
	Advance(evaltime string) error
}

// Program is a compiled D program, ready to start. On a compile error
// Compile returns it too, for Render.
type Program struct {
	Config  *Config
	Options Options
	Info    *check.Info
	Plan    *plan.Plan
	// Registry holds the probes the program matched, by ID.
	Registry *providers.Registry
	// Sources are the texts, by name, that positions refer to.
	Sources diag.Sources

	descs     []string // each source as dtrace describes it
	perSource []int    // probe clauses of each source
	gen       codegen.Options
	// user is set when pid or USDT probes may find new sites in the
	// libraries a traced process loads later: the program is checked
	// and generated again then.
	user *recompile
	// mapped are the target's executable mappings when its probes were
	// matched: whatever it maps after that, even before tracing begins,
	// is a late library.
	mapped string
}

// recompile is what checking again needs.
type recompile struct {
	progs []*ast.Program
	cfg   check.Config
}

// Compile parses, checks and generates a program. Errors in the D text
// are a diag.List (positions into Program.Sources); Render prints them.
func Compile(cfg *Config) (*Program, error) {
	p := &Program{Config: cfg, Sources: diag.Sources{}, Options: DefaultOptions()}
	for _, x := range cfg.Options {
		name, val, _ := strings.Cut(x, "=")
		if err := p.Options.Set(name, val); err != nil {
			return p, fmt.Errorf("failed to set -x %s: %w", name, err)
		}
		if name == "errtags" {
			p.Options.ErrTags = true
		}
	}
	if cfg.Quiet {
		p.Options.Quiet = true
	}
	libs, err := p.loadLibs()
	if err != nil {
		return p, err
	}
	p.Registry = providers.New()
	progs, err := p.parse(libs)
	if err != nil {
		return p, err
	}
	if cfg.Target != nil {
		if err := cfg.Target.Advance(p.evalTime(progs)); err != nil {
			return p, fmt.Errorf("failed to run the command to its entry point: %w", err)
		}
	}
	if cfg.Target != nil {
		p.mapped, _ = execMappings(cfg.Target.PID())
	}
	if err := p.check(libs, progs); err != nil {
		return p, err
	}
	if cfg.Listing {
		return p, nil
	}
	p.gen = codegen.Options{Providers: p.Registry, StrSize: p.Options.StrSize, RingSize: p.Options.BufSize,
		AggEntries: p.Options.AggEntries, DynEntries: p.Options.DynEntries, Destructive: cfg.Destructive && !cfg.NoDestructive,
		NSpec: p.Options.NSpec, FullScratch: p.user != nil, AggGenerations: cfg.AggGenerations,
		CPU: p.Options.CPU, OnlyCPU: p.Options.CPUSet}
	p.Plan, err = codegen.Generate(p.Info, p.gen)
	return p, codegenError(err)
}

// codegenError makes a positioned code generation error a diag.List.
func codegenError(err error) error {
	var ce *codegen.Error
	if errors.As(err, &ce) {
		return diag.List{{Pos: ce.Pos, Msg: ce.Msg}}
	}
	return err
}

// macros are the program's macro variables: $0, $1..., $pid, $ppid,
// $uid, $gid and $target.
func (p *Program) macros() map[string]string {
	m := map[string]string{}
	for i, a := range p.Config.MacroArgs {
		m[strconv.Itoa(i+1)] = a
	}
	m["0"] = p.Config.Prog
	if m["0"] == "" {
		m["0"] = "sonde"
	}
	m["pid"] = strconv.Itoa(os.Getpid())
	m["ppid"] = strconv.Itoa(os.Getppid())
	m["uid"] = strconv.Itoa(os.Getuid())
	m["gid"] = strconv.Itoa(os.Getgid())
	m["euid"] = strconv.Itoa(os.Geteuid())
	m["egid"] = strconv.Itoa(os.Getegid())
	m["pgid"] = strconv.Itoa(unix.Getpgrp())
	if sid, err := unix.Getsid(0); err == nil {
		m["sid"] = strconv.Itoa(sid)
	}
	// DTrace's macro table always holds $target: 0 until -c or -p names
	// a process (dt_open.c, _dtrace_macros)
	m["target"] = "0"
	if p.Config.Target != nil {
		m["target"] = strconv.Itoa(p.Config.Target.PID())
	}
	return m
}

// loadLibs reads the D libraries (package lib describes the search path:
// -L, -x libdir, $SONDE_LIBDIR, the built-in directory) unless -x nolibs
// is set; their texts join the sources for messages.
func (p *Program) loadLibs() ([]*lib.Library, error) {
	var optDirs []string
	for _, x := range p.Config.Options {
		name, val, _ := strings.Cut(x, "=")
		switch name {
		case "nolibs":
			return nil, nil
		case "libdir":
			optDirs = append(optDirs, val)
		}
	}
	libs, errs, err := lib.Load(lib.Path(p.Config.LibDirs, optDirs))
	if err != nil {
		return nil, err
	}
	for _, l := range libs {
		p.Sources[l.Path] = l.Text
	}
	return libs, errs.Err()
}

// parse parses every source.
func (p *Program) parse(libs []*lib.Library) ([]*ast.Program, error) {
	var progs []*ast.Program
	var errs diag.List
	macros := p.macros()
	for _, s := range p.Config.Sources {
		name, text, orig, err := s.LoadCpp(p.Config.Cpp, p.Config.CppArgs)
		if err == nil && s.Kind == Name {
			text, err = p.probeIDText(text) // probeid.go: -i probe-id
		}
		if err != nil {
			return nil, err
		}
		p.Sources[name] = orig // errors point into the script as written
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
		p.perSource = append(p.perSource, n)
		p.descs = append(p.descs, s.describe())
	}
	return progs, errs.Err()
}

// check checks the program with the libraries that apply, applies its
// pragmas, and checks again when a pragma changes types (strsize, stack
// depths).
func (p *Program) check(libs []*lib.Library, progs []*ast.Program) error {
	libProgs := lib.Programs(lib.Select(libs, func(name string) bool {
		return check.ProviderExists(p.Registry, name)
	}))
	all := append(libProgs, progs...)
	cfg := check.Config{
		Resolver:      p.Registry,
		Types:         kernelTypes,
		Macros:        p.macros(),
		ZeroMatches:   p.Config.ZeroMatches || p.Config.Listing,
		Destructive:   !p.Config.NoDestructive && (p.Config.Destructive || p.Options.Destructive),
		NoDestructive: p.Config.NoDestructive,
		DefaultArgs:   p.Options.DefaultArgs,
		StrSize:       p.Options.StrSize,
		StackFrames:   p.Options.StackFrames, UStackFrames: p.Options.UStackFrames,
		MaxFrames: p.Options.MaxFrames,
	}
	info, errs := check.Check(all, cfg)
	if err := errs.Err(); err != nil {
		return err
	}
	for _, o := range info.Options {
		if err := p.Options.Set(o.Name, o.Value); err != nil {
			return diag.List{{Pos: o.Pos, Tag: "D_PRAGMA_OPTSET", Msg: fmt.Sprintf("failed to set option '%s': %v", o.Name, err)}}
		}
	}
	if len(info.Options) > 0 && (p.Options.StrSize != 256 || p.Options.StackFrames != 0 || p.Options.UStackFrames != 0 || p.Options.MaxFrames != 0) {
		cfg.StrSize, cfg.StackFrames, cfg.UStackFrames = p.Options.StrSize, p.Options.StackFrames, p.Options.UStackFrames
		cfg.MaxFrames = p.Options.MaxFrames
		info, errs = check.Check(all, cfg)
		if err := errs.Err(); err != nil {
			return err
		}
	}
	p.Info = info
	if p.userProbes(progs) {
		cfg.ZeroMatches = true // a library loaded later may have none yet
		p.user = &recompile{progs: all, cfg: cfg}
	}
	return nil
}

// evalTime is where -c's command is held while its probes are placed:
// -x evaltime, else at its exec (so that the dynamic linker's work is
// traced too) unless a pid or USDT probe needs its shared libraries
// mapped: then, as dtrace's default (postinit), at its entry point.
func (p *Program) evalTime(progs []*ast.Program) string {
	if p.Options.EvalTime != "" {
		return p.Options.EvalTime
	}
	if p.userProbes(progs) {
		return "postinit"
	}
	return "exec"
}

// userProbes says whether progs have descriptions of probes that live in
// a process's objects (pid, USDT), which the libraries it loads later can
// add to.
func (p *Program) userProbes(progs []*ast.Program) bool {
	for _, prog := range progs {
		for _, decl := range prog.Decls {
			if c, ok := decl.(*ast.ProbeClause); ok {
				for _, pd := range c.Probes {
					d := probe.Desc{Provider: pd.Provider, Module: pd.Module, Function: pd.Function, Name: pd.Name}
					if p.Registry.LoadsLate(d) {
						return true
					}
				}
			}
		}
	}
	return false
}

// Regenerate checks and generates the program again, against the same
// registry, for a traced process that has mapped new objects: probes
// already known keep their IDs, and new ones (functions and USDT probes
// of a library it loaded) get theirs. It returns nil, nil for a program
// with no pid or USDT probes.
func (p *Program) Regenerate() (*plan.Plan, error) {
	if p.user == nil {
		return nil, nil
	}
	info, errs := check.Check(p.user.progs, p.user.cfg)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	plan, err := codegen.Generate(info, p.gen)
	return plan, codegenError(err)
}

// Render is how sonde prints an error of Compile or Start: D errors, and
// clauses the kernel refused, with their source line and a caret (and
// DTrace's tags with -x errtags). It returns "" for other errors, whose
// text says it all.
func (p *Program) Render(err error) string {
	if s := p.renderLoad(err); s != "" {
		return s
	}
	var list diag.List
	if errors.As(err, &list) {
		var b strings.Builder
		for _, e := range list {
			b.WriteString(diag.Render(e, p.Sources, p.Options.ErrTags))
		}
		return b.String()
	}
	var de *diag.Error
	if errors.As(err, &de) {
		return diag.Render(de, p.Sources, p.Options.ErrTags)
	}
	return ""
}

// RenderDTrace renders a D error as dtrace(1) prints it (sonde installed
// as dtrace): the first error only, since dtrace stops at it; "" for an
// error that is not a D error.
func (p *Program) RenderDTrace(err error) string {
	var list diag.List
	if errors.As(err, &list) && len(list) > 0 {
		return diag.RenderDTrace(list[0], p.Sources, p.Options.ErrTags)
	}
	var de *diag.Error
	if errors.As(err, &de) {
		return diag.RenderDTrace(de, p.Sources, p.Options.ErrTags)
	}
	return ""
}

// Enabled counts the probes the program's clauses enable.
func (p *Program) Enabled() int {
	n := 0
	for _, c := range p.Info.Clauses {
		n += len(c.Probes)
	}
	return n
}

// Matches says, for each source as dtrace describes it ("description
// 'syscall::read:entry'", "script 'x.d'"), how many probes its clauses
// enable: dtrace counts a probe once for each clause that enables it.
func (p *Program) Matches() ([]string, []int) {
	out := make([]int, len(p.perSource))
	k := 0
	for i, n := range p.perSource {
		for j := 0; j < n && k < len(p.Info.Clauses); j++ {
			out[i] += len(p.Info.Clauses[k].Probes)
			k++
		}
	}
	return p.descs, out
}
